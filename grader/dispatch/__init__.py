"""A whole class through the pipeline: a process pool or a Dask cluster, the integrity check of the
course before and after, and the run's record.

Owns: grading many submissions at once without one touching another.
Trusts: the pipeline's verdict per submission.
"""
