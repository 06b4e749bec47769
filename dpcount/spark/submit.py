"""The script to give ``spark-submit``: it runs the ``dpcount`` command line.

``spark-submit`` takes a file, not ``python -m dpcount``; this file's path is printed by
``python -c "import dpcount.spark.submit as m; print(m.__file__)"`` (importing it runs nothing).
Ship the packages with ``--py-files`` (:mod:`dpcount.spark.package`)::

    spark-submit --master yarn --py-files dpcount.zip "$SUBMIT" \\
        count hdfs:///logs/pairs.parquet --person uid --item page --engine spark

Without ``--spark-master`` the command runs on the master given to ``spark-submit``.
"""

import sys

__all__: list[str] = []  # a script, not a library module

if __name__ == "__main__":
    from dpcount.cli import main

    sys.exit(main())
