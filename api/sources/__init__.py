"""Sources: each turns the files of a dataset into the canonical Arrow statistics table
(``prunekit.statistics``), one row per container. One package per format, its public module
the package itself, its parts plain names inside it:

- ``parquet``: row groups of Parquet files, from their footers (walked in ``thrift_footer``
  over ``thrift_compact``, decoded in ``footer_schema``, ``footer_types``, ``footer_values``
  and ``footer_table``), and ``bloom`` filters;
- ``delta``: files of a Delta Lake table, from its log, replayed columnar (``log``,
  ``commits``, ``actions``), statistics read together (``stats_json``, ``values``, ``stats``)
  and, for what those leave out, one file at a time (``rules``);
- ``iceberg``: files of an Iceberg table, from its manifests (Avro read by ``avro_file`` and
  ``avro_decode`` into ``entries``, statistics built in ``columns``; pyiceberg for the
  metadata and the manifest list, and as the fallback reader), bounds decoded in ``values``,
  delete files matched in ``deletes``, manifests skipped by their partition summaries in
  ``manifests``, bucketed files by ``buckets``.

Shared by the formats: ``varints`` (the varints of Thrift and Avro), ``jit`` (a decoder
compiled by Numba for many footers, plain Python for a few), ``strings`` (the least string
above a cut prefix, for Delta and Iceberg bounds), ``recent`` (what a process keeps of
snapshots that never change) and ``cache`` (row-group statistics kept beside a Parquet lake).

``prunekit.parquet``, ``prunekit.delta`` and ``prunekit.iceberg`` are their public names.
"""
