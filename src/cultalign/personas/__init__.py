"""CulturalPersonas (Dey et al. 2025): RAG-grounded generation of culturally situated
personality questions, data audit, MCS/OEG evaluation against human IPIP-NEO data."""

import os

# Set before torch (and its OpenMP runtime) is imported by any personas rule
# script or test: with the default wait policy, OpenMP worker threads spin
# between parallel regions.  On a 2-core machine shared with other jobs the
# spinning threads take the cores from the threads doing the work; measured
# here under load ~6, SmolLM2 decoding went from ~1 to ~15 tokens per CPU
# second with PASSIVE.  An explicit setting in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
