"""Stopping the worker pool's helpers while another thread is starting a pool (the live
server stopped by SIGTERM during its first build): the stop kills the workers started so
far, no worker starts after it, and the process ends with nothing of it left running."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from blogshapes import leftovers

SRC = Path(__file__).resolve().parent.parent / "src"

#: A module the forkserver loads before it forks the first worker: slow to load there (the
#: stop comes meanwhile), and it says when it begins (`until_loading`).
SLOW = '''
import os, time
from pathlib import Path

if os.getpid() != int(os.environ["MAIN_PID"]):  # in the forkserver
    Path(os.environ["LOADING"]).touch()
    time.sleep(1.5)

def work(x):
    return x

def init():
    pass

def until_loading():
    """Return once the forkserver has begun to load this module."""
    loading = Path(os.environ["LOADING"])
    while not loading.exists():
        time.sleep(0.01)
'''

#: The build thread renders in a pool; the main thread stops as Session.stop does: the
#: run cancelled, then the helpers stopped while the thread is still busy.
SCRIPT = '''
import os, threading

os.environ["MAIN_PID"] = str(os.getpid())
import slow
from blogbuild import cancel, pool

def main():
    pool.preload("slow")
    token = cancel.Token()
    outcome = []

    def build():
        with cancel.scope(token):
            try:
                for _ in pool.run_jobs(list(range(64)), slow.work, slow.init, (),
                                       jobs=2, minimum=1):
                    pass
                outcome.append("finished")
            except cancel.Cancelled:
                outcome.append("cancelled")

    thread = threading.Thread(target=build, daemon=True)
    thread.start()
    slow.until_loading()
    token.stop()
    thread.join(0.2)
    pool.stop_helpers(idle=not thread.is_alive())
    thread.join(20)
    print("build thread:", outcome, "alive:", thread.is_alive(), flush=True)

if __name__ == "__main__":
    main()
'''

#: `blogbuild build` interrupted (Ctrl-C) while its own thread starts the pool; then what
#: the command does as it ends (blogbuild.perprocess.close_all stops the helpers).
INTERRUPTED = '''
import os, signal, threading

os.environ["MAIN_PID"] = str(os.getpid())
import slow
from blogbuild import perprocess, pool

def interrupt():
    slow.until_loading()
    os.kill(os.getpid(), signal.SIGINT)

def main():
    pool.preload("slow")
    threading.Thread(target=interrupt, daemon=True).start()
    try:
        for _ in pool.run_jobs(list(range(64)), slow.work, slow.init, (), jobs=2, minimum=1):
            pass
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        perprocess.close_all()

if __name__ == "__main__":
    main()
'''

#: Another session's stop while this thread's run goes on (it is not cancelled): its
#: workers are left to finish the run.
GOING_ON = '''
import os, threading

os.environ["MAIN_PID"] = str(os.getpid())
import slow
from blogbuild import cancel, pool

def main():
    pool.preload("slow")
    outcome = []

    def build():
        with cancel.scope(cancel.Token()):
            try:
                outcome.append(sum(pool.run_jobs(list(range(64)), slow.work, slow.init, (),
                                                 jobs=2, minimum=1)))
            except BaseException as exc:
                outcome.append(type(exc).__name__)

    thread = threading.Thread(target=build, daemon=True)
    thread.start()
    slow.until_loading()
    pool.stop_helpers(idle=False)
    thread.join(20)
    pool.stop_helpers()  # as the process ends
    print("build thread:", outcome, "alive:", thread.is_alive(), flush=True)

if __name__ == "__main__":
    main()
'''


@pytest.mark.skipif(os.name != "posix", reason="a session of processes, as the server runs")
@pytest.mark.parametrize(("script", "said"), [
    (SCRIPT, "build thread: ['cancelled'] alive: False"),
    (INTERRUPTED, "interrupted"),
    (GOING_ON, "build thread: [2016] alive: False"),
], ids=["live-server-stop", "ctrl-c", "another-run-goes-on"])
def test_a_stop_while_a_pool_starts_its_workers_ends_them_all(tmp_path: Path, script: str,
                                                              said: str) -> None:
    (tmp_path / "slow.py").write_text(textwrap.dedent(SLOW))
    (tmp_path / "script.py").write_text(textwrap.dedent(script))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)]),
           "LOADING": str(tmp_path / "loading")}
    proc = subprocess.Popen([sys.executable, "script.py"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # the stop waited for a forkserver that never ends
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        pytest.fail(f"the stop hung:\n{out}\n{err}")
    assert proc.returncode == 0, err
    assert said in out, out + err
    assert leftovers(proc.pid) == []  # no worker, forkserver or resource tracker
