"""tl.multiprocessing: shared-memory tensors, Hogwild training from several processes (fork and
spawn), tensors through queues as shared memory, spawn() errors, and nothing left in /dev/shm."""

import os
import pickle
import subprocess
import sys
import textwrap
from multiprocessing import reduction
from pathlib import Path

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.multiprocessing as mp

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork/spawn tests on Linux")


def _shm_entries() -> set:
    """The entries of /dev/shm that shared tensors could leave. POSIX semaphores (``sem.*``:
    multiprocessing's locks, which its resource tracker cleans up) and Open MPI's segments are
    left out: processes running beside the test (another pytest-xdist worker, an mpiexec job)
    make and remove them at any time."""
    names = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    return {n for n in names if not n.startswith(("sem.", "sm_segment.", "vader_segment."))}


def _data(seed):
    g = np.random.default_rng(seed)
    x = g.normal(size=(32, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)
    return tl.tensor(x), tl.tensor(y)


def _model():
    tl.manual_seed(0)
    return tl.nn.Sequential(tl.nn.Linear(4, 8), tl.nn.Tanh(), tl.nn.Linear(8, 1))


def _loss(model):
    x, y = _data(123)
    with tl.no_grad():
        return float(((model(x) - y) ** 2).mean())


def hogwild_worker(rank, model, steps):
    """Train the shared model in place: the parent sees every step."""
    x, y = _data(rank)
    opt = tl.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()


def add_one_worker(rank, queue, done):
    """Take a tensor from the queue, change it in place, tell the parent."""
    t = queue.get()
    assert t.is_shared()
    t.add_(1.0)
    t[0] = 100.0
    done.set()


def send_back_worker(rank, queue, done, result):
    """Send a tensor to the parent; after the parent changed it, check the change is seen."""
    t = tl.zeros(3)
    queue.put(t)
    done.wait(30)
    result.put(t.tolist())


def failing_worker(rank):
    """Rank 1 raises."""
    if rank == 1:
        raise ValueError("rank one failed on purpose")


def crashing_worker(rank, model):
    """Touch the shared model, then die without cleaning anything up."""
    with tl.no_grad():
        model[0].weight.add_(1.0)
    os._exit(3)


def square(x):
    """A Pool task."""
    return x * x


def test_share_memory_keeps_values_and_in_place_updates():
    t = tl.arange(6.0).reshape(2, 3)
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared()
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    t.share_memory_()  # a no-op now
    with tl.no_grad():
        t.data -= 1.0
        t.mul_(2.0)
    assert t.is_shared() and t[1].is_shared()
    assert t.tolist() == [[-2.0, 0.0, 2.0], [4.0, 6.0, 8.0]]


def test_module_share_memory_survives_optimizer_steps():
    model = _model()
    assert model.share_memory() is model
    assert all(p.is_shared() for p in model.parameters())
    for opt in (tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
                tl.optim.Adam(model.parameters(), lr=0.01)):
        x, y = _data(0)
        for _ in range(2):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
    assert all(p.is_shared() for p in model.parameters())


def test_pickling_a_shared_tensor_sends_a_handle_to_the_same_memory():
    t = tl.ones(4).share_memory_()
    copy = reduction.ForkingPickler.loads(reduction.ForkingPickler.dumps(t))
    copy.add_(1.0)
    assert t.tolist() == [2.0] * 4
    plain = tl.ones(2)  # not shared and no tl queue: pickled by value, as before
    other = pickle.loads(reduction.ForkingPickler.dumps(plain))
    other.add_(1.0)
    assert plain.tolist() == [1.0, 1.0] and not plain.is_shared()


def test_non_leaf_tensor_that_requires_grad_is_refused():
    q = mp.SimpleQueue()
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        q.put(x * 2)
    q.put((x * 2).detach())
    assert q.get().tolist() == [2.0, 2.0]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_two_processes_train_the_parents_model(method):
    before_shm = _shm_entries()
    model = _model().share_memory()
    before = [p.detach().clone() for p in model.parameters()]
    loss_before = _loss(model)
    mp.spawn(hogwild_worker, args=(model, 15), nprocs=2, start_method=method)
    changed = [not np.allclose(p.detach().numpy(), b.numpy())
               for p, b in zip(model.parameters(), before)]
    assert all(changed)
    assert _loss(model) < 0.7 * loss_before
    assert _shm_entries() <= before_shm


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_tensor_through_queue_is_shared_with_the_child(method):
    ctx = mp.get_context(method)
    queue, done = ctx.Queue(), ctx.Event()
    t = tl.zeros(3)
    p = ctx.Process(target=add_one_worker, args=(0, queue, done))
    p.start()
    queue.put(t)
    assert t.is_shared()  # moved to shared memory by put, as PyTorch does
    assert done.wait(30)
    p.join(30)
    assert p.exitcode == 0
    assert t.tolist() == [100.0, 1.0, 1.0]


def test_tensor_from_child_through_queue_is_shared_with_the_parent():
    ctx = mp.get_context("spawn")
    queue, done, result = ctx.Queue(), ctx.Event(), ctx.SimpleQueue()
    p = ctx.Process(target=send_back_worker, args=(0, queue, done, result))
    p.start()
    t = queue.get(timeout=30)
    t.fill_(7.0)
    done.set()
    assert result.get() == [7.0, 7.0, 7.0]
    p.join(30)
    assert p.exitcode == 0


def test_spawn_reports_the_childs_exception():
    with pytest.raises(mp.ProcessRaisedException, match="rank one failed on purpose") as info:
        mp.spawn(failing_worker, nprocs=2, start_method="fork")
    assert info.value.error_index == 1
    context = mp.spawn(failing_worker, nprocs=1, join=False, start_method="fork")
    assert len(context.pids()) == 1 and context.join(30) is True
    with pytest.raises(ValueError):
        mp.spawn(failing_worker, nprocs=0)


def test_crashed_child_leaves_nothing_in_dev_shm():
    """A script shares a model with a child that dies mid-way (no cleanup), sees the child's
    change and the exit status; after the script ends, /dev/shm has nothing new."""
    before = _shm_entries()
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        import tinygrad_lite as tl, tinygrad_lite.multiprocessing as mp
        from test_multiprocessing import _model, crashing_worker
        if __name__ == "__main__":
            model = _model().share_memory()
            w = model[0].weight.detach().clone()
            try:
                mp.spawn(crashing_worker, args=(model,), nprocs=1, start_method="spawn")
            except mp.ProcessExitedException as e:
                assert e.exit_code == 3, e
                print("child exited", e.exit_code)
            assert tl.allclose(model[0].weight, w + 1)
            print("change seen")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "child exited 3" in out.stdout and "change seen" in out.stdout
    assert _shm_entries() <= before


def test_standard_library_names_are_exported():
    assert mp.cpu_count() >= 1
    assert mp.get_start_method(allow_none=True) in (None, "fork", "spawn", "forkserver")
    assert "spawn" in mp.get_all_start_methods()
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    with pytest.raises(ValueError):
        mp.set_sharing_strategy("nope")
    with mp.get_context("fork").Pool(2) as pool:
        assert pool.map(square, [1, 2, 3]) == [1, 4, 9]
    assert tl.multiprocessing is mp


def test_hogwild_example_trains_the_shared_model():
    """examples/hogwild.py run as a script (spawn): the parent's held-out loss falls."""
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "hogwild.py"), "--steps",
                          "80"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    losses = [float(line.split(":")[1].split()[0]) for line in out.stdout.splitlines()
              if line.startswith("held-out loss")]
    assert len(losses) == 2 and losses[1] < 0.5 * losses[0]
    assert "process 0" in out.stdout and "process 1" in out.stdout
