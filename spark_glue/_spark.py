"""pyspark, imported when first needed, with an install hint; the session helper and the
translation of executor errors into prunekit errors."""

from __future__ import annotations

import contextlib
import os
import re
import sys

from prunekit import errors as E

try:
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as e:  # pragma: no cover - exercised without pyspark only
    raise ImportError("prunekit.spark_glue needs pyspark: pip install 'prunekit[spark]' "
                      "(or pip install pyspark pandas)") from e

__all__ = ["F", "T", "arrow_udf_available", "local_session", "retag", "spark_errors"]


def arrow_udf_available() -> bool:
    """Whether this pyspark has Arrow UDFs over ``pyarrow.Array`` (Spark 4.1+)."""
    try:
        from pyspark.sql.functions import arrow_udf  # noqa: F401
    except ImportError:
        return False
    return True


def local_session(master: str = "local[*]", **conf):
    """An embedded Spark session for notebooks, tests and the demo: the UI off, few shuffle
    partitions, and Python workers running this interpreter (``PYSPARK_PYTHON``). Extra
    ``conf`` entries are Spark settings (``local_session("local[2]", **{"spark.x": "y"})``).
    Returns the active session if one exists (Spark allows one per process).

    What the kernel path needs from a session (set here; in your own session set them when
    you build it, as they are read when the SparkContext starts, not per query):

    - ``spark.python.worker.reuse=true`` (Spark's default): a worker keeps the kernels it
      loaded across tasks; without reuse every task pays Numba's start-up and the kernel
      load again (about 3 s per worker measured on a loaded 2-core VM).
    - ``PYSPARK_PYTHON``: workers must run an interpreter where prunekit is installed.

    ``spark.sql.execution.arrow.maxRecordsPerBatch`` (runtime: ``spark.conf.set`` applies
    to the next action) made no measurable difference from 10,000 (the default) to 250,000
    at a million containers; one batch per task (1,000,000) was slower in our runs.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.default.parallelism": "4",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.memory": "2g",
        "spark.python.worker.reuse": "true",
        **{k: str(v) for k, v in conf.items()},
    }
    builder = SparkSession.builder.master(master).appName("prunekit")
    for k, v in settings.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


_TAG = re.compile(r"prunekit (PrunekitError|SqlSyntaxError|StatisticsError|TypeMismatchError|"
                  r"UnknownColumnError|UnsupportedError): (.*)")


@contextlib.contextmanager
def spark_errors():
    """Re-raise a prunekit error that happened in a Spark executor as that prunekit error on
    the driver (Spark reports it as a ``PythonException`` holding the worker's traceback).

    >>> with spark_errors():
    ...     raise ValueError("not from an executor: unchanged")
    Traceback (most recent call last):
    ...
    ValueError: not from an executor: unchanged
    """
    try:
        yield
    except Exception as e:
        found = _TAG.findall(str(e))
        if not found or not type(e).__module__.startswith(("pyspark", "py4j")):
            raise
        name, message = found[-1]
        raise retag(getattr(E, name), f"in a Spark executor: {message.strip()}") from e


def retag(error, message: str) -> E.PrunekitError:
    """A prunekit error of the class of ``error`` (an instance or a class) with ``message``
    (built without the class's own constructor, whose arguments differ)."""
    cls = error if isinstance(error, type) else type(error)
    out = cls.__new__(cls)
    Exception.__init__(out, message)
    for attr in ("line", "col", "name"):
        setattr(out, attr, getattr(error, attr, None))
    return out


def session_time_zone(spark) -> str | None:
    """The session's time zone (``spark.sql.session.timeZone``), which prunekit reads
    TIMESTAMP literals and calendar functions in, as Spark does; None for a name Python's
    time zones do not know (one of Java's short names such as ``PST``).

    >>> class Conf:
    ...     def get(self, key): return "America/New_York"
    >>> class Session:
    ...     conf = Conf()
    >>> session_time_zone(Session())
    'America/New_York'
    """
    from prunekit.expr.syntax.moments import zone

    name = spark.conf.get("spark.sql.session.timeZone")
    try:
        zone(name)
    except ValueError:
        return None
    return name
