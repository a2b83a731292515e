"""The course as a static website: staging, executing with precomputed widgets, Sphinx."""
