"""The run engine: plan a sweep's cells, compute them on a backend, record them in the store.

Reads the configuration layer and writes through the results layer; never draws or reports.
"""
