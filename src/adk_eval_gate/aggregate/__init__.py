"""Scored runs into results.json's records: each run, each case over its runs, and the document with its usage
and prices."""
