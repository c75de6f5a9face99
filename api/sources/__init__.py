"""Sources: each turns the files of a dataset into the canonical Arrow statistics table
(``prunekit.statistics``), one row per container.

- ``parquet``: row groups of Parquet files, from their footers (decoded in ``_thrift_footer``,
  ``_footer_schema``, ``_footer_values`` and ``_footer_table``), and ``bloom`` filters;
- ``delta``: files of a Delta Lake table, from its log.

``prunekit.parquet`` and ``prunekit.delta`` are their public names.
"""
