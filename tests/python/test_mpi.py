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


ENV = dict(OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           TACK_NUM_THREADS="1")


def mpirun(n, *args, timeout=600, env=None):
    r = subprocess.run(mpirun_command(n) + [sys.executable, *map(str, args)], capture_output=True,
                       text=True, timeout=timeout, env=dict(os.environ, **ENV, **(env or {})))
    return r


def package_path():
    """PYTHONPATH with the imported tack's folder first, absolute (a child may run elsewhere)."""
    import tack
    here = str(pathlib.Path(tack.__file__).resolve().parents[1])
    return os.pathsep.join([here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                     if p])


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("script, says", [("check_mpi.py", "ok"), ("check_halo.py", "halo ok"),
                                          ("check_amr.py", "amr ok")])
def test_under_mpirun(script, says, n):
    """check_mpi.py: every operation; check_halo.py: the halo exchange against the global grid;
    check_amr.py: a distributed AMR against one process's. Each rank prints its line when every
    check passed."""
    r = mpirun(n, ROOT / "tests/mpi" / script)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    for k in range(n):
        assert f"rank {k} of {n}: {says}" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_distributed_heat_example_computes_the_single_process_plate(n, tmp_path):
    steps = 60
    r = subprocess.run(mpirun_command(n) + [sys.executable,
                       str(ROOT / "examples/mpi/heat_distributed.py"), str(steps),
                       str(tmp_path / "plate.npy")],
                       capture_output=True, text=True, timeout=600, cwd=tmp_path,
                       env=dict(os.environ, **ENV, PYTHONPATH=package_path()))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert (tmp_path / "heat_distributed.png").exists()
    # The single-process example's kernel, the same steps.
    sys.path.insert(0, str(ROOT / "examples/python"))
    try:
        import heat
    finally:
        sys.path.pop(0)
    import numpy as np
    import tack
    size = 256
    yy, xx = np.mgrid[0:size, 0:size]
    init = (np.abs(np.hypot(yy - size / 2, xx - size / 2) - size / 4) < 6).astype(np.float32)
    u, v = tack.array(init), tack.array(init)
    for _ in range(steps):
        heat.heat_step(u, v, 0.2)
        u, v = v, u
    assert np.array_equal(np.load(tmp_path / "plate.npy"), u.numpy())


def test_a_rank_that_dies_ends_the_job_instead_of_hanging():
    r = mpirun(2, ROOT / "tests/mpi/dead_rank.py", timeout=120, env={"TACK_MPI_TIMEOUT": "5"})
    assert r.returncode != 0
    # mpirun ends the job when rank 1 exits with an error; if it does not, rank 0's watchdog
    # raises and names the rank.
    said = r.stdout + r.stderr
    assert "exit code" in said or "did not complete within" in said, said
