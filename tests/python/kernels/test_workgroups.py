"""Workgroups (docs/language.md, "Workgroups"; docs/design/workgroups.md): tack.shared arrays,
tack.barrier(), tack.thread_id() and the block reductions run on devices with workgroups
(OpenCL) in groups of 256 iterations; the CPU refuses such a kernel before compiling, naming the
construct and the device that has them; a barrier some work items might not reach is a
CompileError; an iteration count that is not a multiple of 256 is a ValueError."""
import numpy as np
import pytest

import tack
from kutil import arr, zeros

needs_workgroups = pytest.mark.workgroups_only("workgroups run on devices that have them")
G = 256


@tack.kernel
def wg_group_reductions(data, out, n):
    for i in range(n):
        s = tack.block_sum(data[i])
        lo = tack.block_min(data[i])
        hi = tack.block_max(data[i])
        if tack.thread_id() == 0:
            out[i // 256, 0] = s
            out[i // 256, 1] = lo
            out[i // 256, 2] = hi


@needs_workgroups
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_block_reductions_give_every_group_its_result(dtype):
    d = np.random.default_rng(5).integers(-1000, 1000, 4 * G).astype(dtype)
    out = zeros((4, 3), dtype)
    wg_group_reductions(arr(d), out, len(d))
    g = d.reshape(4, G)
    np.testing.assert_allclose(out.numpy(), np.stack([g.sum(1), g.min(1), g.max(1)], 1),
                               rtol=1e-6)


@needs_workgroups
def test_block_sum_is_the_same_bits_run_after_run():
    d = np.random.default_rng(6).standard_normal(8 * G).astype(np.float32)
    first = zeros((8, 3), np.float32)
    wg_group_reductions(arr(d), first, len(d))
    for _ in range(3):
        again = zeros((8, 3), np.float32)
        wg_group_reductions(arr(d), again, len(d))
        assert again.numpy().tobytes() == first.numpy().tobytes()


@tack.kernel
def wg_reverse(x, out):
    for i in range(len(x)):
        buf = tack.shared(tack.f32, 256)
        t = tack.thread_id()
        buf[t] = x[i]
        tack.barrier()
        out[i] = buf[255 - t]


@needs_workgroups
def test_shared_memory_and_barrier_exchange_values_within_a_group():
    d = np.arange(3 * G, dtype=np.float32)
    out = zeros(3 * G, np.float32)
    wg_reverse(arr(d), out)
    np.testing.assert_array_equal(out.numpy(), d.reshape(3, G)[:, ::-1].ravel())


@tack.kernel
def wg_reverse_declared_before_the_loop(x, out):
    buf = tack.shared(tack.f32, 256)  # the original Tack's place: before the parallel loop
    for i in range(len(x)):
        t = tack.thread_id()
        buf[t] = x[i]
        tack.barrier()
        out[i] = buf[255 - t]


@needs_workgroups
def test_shared_memory_declared_before_the_parallel_loop():
    d = np.arange(2 * G, dtype=np.float32)
    out = zeros(2 * G, np.float32)
    wg_reverse_declared_before_the_loop(arr(d), out)
    np.testing.assert_array_equal(out.numpy(), d.reshape(2, G)[:, ::-1].ravel())


@pytest.mark.cpu_only("the CPU's refusal")
def test_shared_memory_before_the_loop_on_the_cpu_names_workgroups():
    with pytest.raises(tack.CompileError, match=r"tack.shared\(...\) needs workgroups"):
        wg_reverse_declared_before_the_loop(arr(np.zeros(G, np.float32)),
                                            zeros(G, np.float32))


@tack.kernel
def wg_uniform_control(x, out, rounds):
    for i in range(len(x)):
        acc = 0.0
        for r in range(rounds):  # a bound from a scalar argument: uniform
            acc += tack.block_sum(x[i])
        s = tack.block_sum(x[i])
        if s > 0.0:  # a block reduction's result is the same for the whole group
            acc += tack.block_max(x[i])
        out[i] = acc


@needs_workgroups
def test_barriers_under_uniform_conditions_and_loops():
    d = np.ones(2 * G, np.float32)
    out = zeros(2 * G, np.float32)
    wg_uniform_control(arr(d), out, 3)
    assert (out.numpy() == 3 * G + 1).all()


@needs_workgroups
def test_iteration_count_must_fill_whole_groups():
    out = zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="multiple of 256"):
        wg_group_reductions(arr(np.ones(1000, np.float32)), out, 1000)
    wg_group_reductions(arr(np.ones(4, np.float32)), out, 0)  # no iterations: nothing runs


@pytest.mark.cpu_only("the CPU device has no workgroups")
def test_the_cpu_refuses_workgroup_kernels_before_compiling():
    with pytest.raises(tack.CompileError, match="needs workgroups, which the CPU device does not"
                                                " have; run this kernel on an OpenCL device"):
        wg_reverse(zeros(G, np.float32), zeros(G, np.float32))


def test_a_barrier_some_work_items_might_skip_is_refused():
    @tack.kernel
    def wg_varying_if(x, out):
        for i in range(len(x)):
            if x[i] > 0.0:
                tack.barrier()
            out[i] = x[i]

    @tack.kernel
    def wg_varying_loop(x, out):
        for i in range(len(x)):
            for j in range(i % 3):
                out[i] = tack.block_sum(x[i])

    @tack.kernel
    def wg_varying_break(x, out, n):
        for i in range(len(x)):
            for j in range(n):
                if x[i] > 0.0:
                    break
                tack.barrier()

    @tack.kernel
    def wg_varying_carried(x, out):
        for i in range(len(x)):
            k = 0
            while k < 2:
                tack.barrier()
                k += tack.i32(i % 2) + 1

    for k in (wg_varying_if, wg_varying_loop):
        with pytest.raises(tack.CompileError, match="every work item of a group must reach"):
            k(zeros(G, np.float32), zeros(G, np.float32))
    with pytest.raises(tack.CompileError, match="every work item of a group must reach"):
        wg_varying_break(zeros(G, np.float32), zeros(G, np.float32), 2)
    with pytest.raises(tack.CompileError, match="every work item of a group must reach"):
        wg_varying_carried(zeros(G, np.float32), zeros(G, np.float32))


def test_barriers_after_a_varying_skip_or_exit_are_refused():
    # Review findings: a varying `continue` of the parallel loop itself, and locals left
    # different by a varying break, must not let a barrier through.
    @tack.kernel
    def wg_after_continue(x, out):
        for i in range(len(x)):
            if x[i] > 0.0:
                continue
            tack.barrier()
            out[i] = x[i]

    @tack.kernel
    def wg_count_after_break(x, out, n):
        for i in range(len(x)):
            c = 0
            for j in range(n):
                if x[i] > 0.0:
                    break
                c += 1
            for s in range(c):
                tack.barrier()

    with pytest.raises(tack.CompileError, match="every work item of a group must reach"):
        wg_after_continue(zeros(G, np.float32), zeros(G, np.float32))
    with pytest.raises(tack.CompileError, match="every work item of a group must reach"):
        wg_count_after_break(zeros(G, np.float32), zeros(G, np.float32), 3)
