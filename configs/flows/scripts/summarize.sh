#!/bin/sh
# Reads the results of job "measure" and writes a one-line summary.
summary="disk ${HYPHAE_IN_MEASURE_DISK:-?} used, load ${HYPHAE_IN_MEASURE_LOAD:-?}"
echo "$summary"
echo "summary=$summary" >> "$HYPHAE_RESULT"
