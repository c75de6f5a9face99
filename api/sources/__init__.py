"""Sources: each turns the files of a dataset into the canonical Arrow statistics table
(``prunekit.statistics``), one row per container.

- ``parquet``: row groups of Parquet files, from their footers (decoded in ``_thrift_footer``,
  ``_footer_schema``, ``_footer_values`` and ``_footer_table``), and ``bloom`` filters;
- ``delta``: files of a Delta Lake table, from its log, replayed columnar (``_delta_log``,
  ``_delta_commits``, ``_delta_actions``), statistics read together (``_delta_json``,
  ``_delta_values``, ``_delta_stats``) and, for what those leave out, one file at a time
  (``_delta_rules``);
- ``iceberg``: files of an Iceberg table, from its manifests (Avro read by ``_avro_file`` and
  ``_avro_decode`` into ``_iceberg_entries``, statistics built in ``_iceberg_columns``;
  pyiceberg for the metadata and the manifest list, and as the fallback reader), bounds decoded in
  ``_iceberg_values``, delete files matched in ``_iceberg_deletes``, manifests skipped by their
  partition summaries in ``_iceberg_manifests``, bucketed files by ``_iceberg_buckets``.

``prunekit.parquet``, ``prunekit.delta`` and ``prunekit.iceberg`` are their public names.
"""
