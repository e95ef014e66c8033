"""A rank dies while another waits for it (tests/python/test_mpi.py): the waiting rank must not
hang. Rank 1 exits at once with status 3; rank 0 waits for a message that never comes, under a
short TACK_MPI_TIMEOUT, and reports what it saw."""
import os
import sys

import tack
from tack import mpi

comm = mpi.Communicator()
if comm.rank == 1:
    os._exit(3)
try:
    comm.recv(tack.zeros(4), 1)
except RuntimeError as e:
    print(f"rank 0: {e}", flush=True)
    sys.exit(4)
