"""tack.mpi across processes: tests/mpi/check_mpi.py under `mpirun -np 2` and `-np 4`
(oversubscribed: this machine has two cores; as root, mpirun needs --allow-run-as-root), each
run bounded in time. Skipped, saying why, where Tack was built without MPI or mpirun is
missing."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def mpirun_command(n):
    try:
        import tack._mpi  # noqa: F401
    except ImportError as e:
        pytest.skip(f"Tack was built without MPI ({e})")
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("mpirun is not installed (Debian: openmpi-bin)")
    cmd = [mpirun, "-np", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


@pytest.mark.parametrize("n", [2, 4])
def test_every_operation_under_mpirun(n):
    env = dict(os.environ, OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none",
               TACK_NUM_THREADS="1")
    r = subprocess.run(mpirun_command(n) + [sys.executable, str(ROOT / "tests/mpi/check_mpi.py")],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    for k in range(n):
        assert f"rank {k} of {n}: ok" in r.stdout, r.stdout + r.stderr


def test_a_rank_that_dies_ends_the_job_instead_of_hanging():
    env = dict(os.environ, TACK_MPI_TIMEOUT="5", OMPI_MCA_btl="self,vader",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    r = subprocess.run(mpirun_command(2) + [sys.executable, str(ROOT / "tests/mpi/dead_rank.py")],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode != 0
    # mpirun ends the job when rank 1 exits with an error; if it does not, rank 0's watchdog
    # raises and names the rank.
    said = r.stdout + r.stderr
    assert "exit code" in said or "did not complete within" in said, said
