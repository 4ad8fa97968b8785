#!/usr/bin/env python3
"""Generate the seed-replay session: a Claude Code transcript that plays out the story
told in ../shared/seeds/ (an SGLang server on eight GPUs, speculative decoding for
Kimi-K2.5, NCCL tuning), numbered so that the story lands on the seeds' message ids
5071-5087.

Messages 1-5070 are the earlier part of the campaign (baseline, drafter fine-tuning,
n-gram trial, profiling, the plan), generated from templates with a fixed seed so the
output is byte-identical on every run. They are ordinary work: every relaunch changes
one thing, every wait loop succeeds, greps answer, failures are fixed by an edit before
the next run. The story itself (5069-5087) is written out by hand.

Usage: python3 corpus/seed-replay/generate.py > corpus/seed-replay/kimi-k25-eagle3-campaign.jsonl
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

SID = "5e7d0c4a-91b2-4f36-8c0e-b3a1d9e47f25"
CWD = "/home/lena/work/k25-specdec"
HOST = "root@10.23.0.17"
MODEL = "claude-opus-4-6"
LOGDIR = "/data/eagle3/synth_100k/logs"

rng = random.Random(5084)
out = []
state = {"idx": 0, "uuid": 0, "parent": None, "t": datetime(2026, 2, 24, 9, 2, 11, tzinfo=timezone.utc), "msg": 0, "tool": 0}


def ts():
    return state["t"].strftime("%Y-%m-%dT%H:%M:%S.") + f"{state['t'].microsecond // 1000:03d}Z"


def tick(lo, hi):
    state["t"] += timedelta(seconds=rng.uniform(lo, hi))
    # Working days: nobody drives the agent between 23:30 and 08:30.
    t = state["t"]
    if t.hour == 23 and t.minute >= 30:
        state["t"] = (t + timedelta(days=1)).replace(hour=8, minute=30 + rng.randint(0, 25), second=rng.randint(0, 59))


def new_uuid():
    state["uuid"] += 1
    return f"{state['uuid']:08x}-5b1e-4c2d-9e3f-{state['uuid']:012x}"


def record(kind, **kw):
    u = new_uuid()
    d = {"parentUuid": state["parent"], "isSidechain": False, "userType": "external", "cwd": CWD,
         "sessionId": SID, "version": "2.1.42", "gitBranch": "specdec-nccl", "type": kind}
    d.update(kw)
    d["uuid"] = u
    d["timestamp"] = ts()
    state["parent"] = u
    out.append(d)


def user(text):
    state["idx"] += 1
    tick(20, 240)
    record("user", message={"role": "user", "content": text})


def assistant(text=None, tool=None, output="", is_error=False, thinking=None, think_secs=(3, 20), run_secs=(1, 8)):
    """One assistant message: optional thinking, text, and one tool call with its result."""
    state["idx"] += 1
    state["msg"] += 1
    mid = f"msg_01K25Spec{state['msg']:06d}"
    tick(*think_secs)

    def line(block, stop=None):
        record("assistant", message={"model": MODEL, "id": mid, "type": "message", "role": "assistant",
                                     "content": [block], "stop_reason": stop, "stop_sequence": None,
                                     "usage": {"input_tokens": 3, "output_tokens": 9}},
               requestId=f"req_011K25{state['msg']:08d}")
        tick(0.2, 1.5)

    if thinking:
        line({"type": "thinking", "thinking": thinking, "signature": "sig"})
    if text:
        line({"type": "text", "text": text}, None if tool else "end_turn")
    if tool:
        state["tool"] += 1
        tid = f"toolu_01K25{state['tool']:07d}"
        name, inp = tool
        line({"type": "tool_use", "id": tid, "name": name, "input": inp}, "tool_use")
        tick(*run_secs)
        content = output
        block = {"tool_use_id": tid, "type": "tool_result", "content": content}
        extra = {}
        if is_error:
            block["is_error"] = True
            extra["toolUseResult"] = "Error: " + content
        elif name == "Bash":
            extra["toolUseResult"] = {"stdout": content, "stderr": "", "interrupted": False, "isImage": False}
        record("user", message={"role": "user", "content": [block]}, sourceToolAssistantUUID=state["parent"], **extra)


def bash(cmd, desc):
    return ("Bash", {"command": cmd, "description": desc})


def remote(cmd):
    return f"ssh {HOST} '{cmd}'"


# ---------------------------------------------------------------- launch commands
BASE_FLAGS = ("--model-path /models/Kimi-K2.5 --tp 8 --trust-remote-code "
              "--speculative-algorithm EAGLE3 --speculative-num-steps 3 --speculative-eagle-topk 1 "
              "--speculative-num-draft-tokens 4 --mem-fraction-static 0.85 --cuda-graph-max-bs 8 --port 30000")


def launch_cmd(env, draft, log):
    envs = " ".join(f"{k}={v}" for k, v in env)
    envs = (envs + " ") if envs else ""
    return remote(f"cd /data/eagle3 && {envs}nohup python -m sglang.launch_server {BASE_FLAGS} "
                  f"--speculative-draft-model-path {draft} > {LOGDIR}/{log} 2>&1 &") + " && echo launched"


def wait_ready_cmd(attempts, secs):
    return (f"for i in $(seq 1 {attempts}); do if curl -sf http://10.23.0.17:30000/health >/dev/null; "
            f"then echo \"READY after $((i*{secs}))s\"; break; fi; sleep {secs}; done")


# ---------------------------------------------------------------- filler templates
FILES = ["python/sglang/srt/speculative/eagle_worker.py", "python/sglang/srt/distributed/communication_op.py",
         "python/sglang/srt/layers/communicator.py", "python/sglang/srt/model_executor/cuda_graph_runner.py",
         "scripts/bench_specdec.py", "scripts/train_drafter.py", "scripts/gen_synth_data.py",
         "configs/drafter_k25.yaml", "notes/results.md"]

def filler_read(phase):
    f = rng.choice(FILES)
    start = rng.randint(1, 400)
    body = "\n".join(f"{start + i:6d}\t" + rng.choice([
        "        hidden_states = self.layer_norm(hidden_states)",
        "        if self.speculative_algorithm.is_eagle():",
        "    def forward(self, input_ids, positions, forward_batch):",
        "        out = tensor_model_parallel_all_reduce(out)",
        "        return logits_output, next_token_ids",
        "        self.num_draft_tokens = server_args.speculative_num_draft_tokens",
        "    # accept as many draft tokens as match the target",
        "        torch.cuda.synchronize()",
    ]) for i in range(rng.randint(4, 9)))
    assistant(rng.choice([f"Let me look at `{f}` around line {start}.", f"Checking how {phase} is wired in `{f}`.", None]),
              ("Read", {"file_path": f"{CWD}/{f}", "offset": start, "limit": 40}), body)


def filler_bench(phase, toks):
    n = rng.choice([64, 128, 256])
    cmd = remote(f"cd /data/eagle3 && python scripts/bench_specdec.py --host 10.23.0.17 --port 30000 --num-prompts {n} --max-new-tokens 512")
    accept = rng.uniform(0.30, 0.40) if phase != "baseline" else 0.36
    output = (f"prompts: {n}  concurrency: 1\n"
              f"output throughput: {toks + rng.uniform(-1.5, 1.5):.1f} tok/s\n"
              f"mean accept length: {1 + accept * 3:.2f}  draft acceptance: {accept * 100:.1f}%\n"
              f"p50 latency: {rng.uniform(5.8, 6.6):.2f}s  p99 latency: {rng.uniform(7.0, 8.2):.2f}s")
    assistant(rng.choice(["Benchmarking this configuration.", "Running the throughput benchmark again for a second sample.", None]),
              bash(cmd, "Benchmark speculative decoding"), output, run_secs=(60, 140))


def filler_train(step):
    loss = 2.1 * (0.9995 ** step) + 0.9
    acc = min(0.38, 0.12 + step / 20000)
    cmd = remote(f"tail -3 {LOGDIR}/train_drafter_ft.log")
    output = "\n".join(f"step {step + i * 50} | loss {loss - i * 0.003:.4f} | acc@1 {acc:.3f} | lr 2.0e-05 | 1.82 it/s" for i in range(3))
    assistant(rng.choice(["Training progress:", "Checking the fine-tuning run.", None]), bash(cmd, "Check training progress"), output, run_secs=(1, 3))


def filler_edit(phase):
    f = rng.choice(FILES[:6])
    old = rng.choice(["num_steps = 3", "topk = 1", "warmup = 100", "batch_size = 16", "max_len = 2048"])
    new = old.replace("3", "4").replace("1", "2").replace("100", "200").replace("16", "32").replace("2048", "4096")
    assistant(rng.choice([f"Adjusting `{old.split(' = ')[0]}` for the {phase} experiment.", f"Small change in `{f}`."]),
              ("Edit", {"file_path": f"{CWD}/{f}", "old_string": old, "new_string": new}),
              f"The file {CWD}/{f} has been updated.")


def filler_misc(phase):
    choice = rng.randrange(6)
    if choice == 0:
        out_ = "\n".join(f"{i}, NVIDIA RTX PRO 6000 Blackwell, {rng.randint(60, 89)}, {rng.randint(80000, 91000)} MiB, {rng.randint(240, 540)} W" for i in range(8))
        assistant("GPU state:", bash(remote("nvidia-smi --query-gpu=index,name,temperature.gpu,memory.used,power.draw --format=csv,noheader"), "GPU status"), out_)
    elif choice == 1:
        assistant(None, bash("git status --short", "Working tree status"), rng.choice([" M scripts/bench_specdec.py", " M notes/results.md\n?? notes/profile_verify.txt", ""]))
    elif choice == 2:
        assistant("Recording the result.", ("Edit", {"file_path": f"{CWD}/notes/results.md", "old_string": "<!-- next -->", "new_string": f"- {phase}: see run log\n<!-- next -->"}), f"The file {CWD}/notes/results.md has been updated.")
    elif choice == 3:
        assistant(None, ("Grep", {"pattern": rng.choice(["speculative_num_steps", "all_reduce", "eagle_topk", "draft_model"]), "path": "python/sglang/srt", "output_mode": "files_with_matches"}),
                  "\n".join(rng.sample(FILES[:4], 2)))
    elif choice == 4:
        assistant(None, bash(remote(f"df -h /data | tail -1"), "Disk space"), f"/dev/nvme0n1p1  7.0T  {rng.uniform(3.1, 3.9):.1f}T  3.2T  {rng.randint(45, 55)}% /data")
    else:
        assistant(None, bash(remote(f"ls -la {LOGDIR} | tail -4"), "List logs"),
                  "\n".join(f"-rw-r--r-- 1 root root {rng.randint(100000, 9000000)} Feb {rng.randint(24, 26)} {rng.randint(10, 23)}:{rng.randint(10, 59)} {n}" for n in ["baseline.log", "train_drafter_ft.log", "ngram_trial.log", "profile_verify.log"]))


def relaunch(env, draft, log, note, minutes):
    assistant(f"Stopping the server before the next launch.", bash(remote("pkill -f sglang.launch_server; sleep 10; nvidia-smi --query-gpu=memory.used --format=csv,noheader | sort -u"), "Stop the server"), "4 MiB")
    assistant(note, bash(launch_cmd(env, draft, log), "Launch the SGLang server"), "launched")
    secs = 30
    attempts = 30
    assistant("Waiting for the server to come up (the 547 GB checkpoint takes a while to load).",
              bash(wait_ready_cmd(attempts, secs), "Wait for readiness"), f"READY after {minutes * 60}s",
              run_secs=(minutes * 60, minutes * 60 + 5))


def phase(name, count, toks, extra=None):
    for _ in range(count):
        r = rng.random()
        if extra and r < 0.25:
            extra()
        elif r < 0.45:
            filler_read(name)
        elif r < 0.60:
            filler_misc(name)
        elif r < 0.72:
            filler_edit(name)
        elif r < 0.85:
            filler_bench(name, toks)
        else:
            filler_misc(name)
        if rng.random() < 0.01:
            user(rng.choice(["continue", "ok, keep going", "sounds good", "what's the throughput now?", "go ahead"]))


# ---------------------------------------------------------------- the campaign
user("We need more throughput from Kimi-K2.5 on the 8x RTX PRO 6000 box (PCIe only, no NVLink). "
     "Set up speculative decoding with an EAGLE-3 drafter in SGLang and find out how far we can push it.")
assistant("I'll start by checking the machine and the SGLang checkout.", bash(remote("nvidia-smi -L && python -c 'import sglang; print(sglang.__version__)'"), "Check GPUs and SGLang"),
          "\n".join(f"GPU {i}: NVIDIA RTX PRO 6000 Blackwell Workstation Edition (UUID: GPU-{i:04x})" for i in range(8)) + "\n0.5.9")
DRAFT_BASE = "/models/AQ-MedAI-K2-eagle3"
relaunch([], DRAFT_BASE, "baseline.log", "Launching the baseline with the AQ-MedAI K2 EAGLE-3 drafter.", 9)
phase("baseline", 560, 82.0)

# Fine-tuning the drafter on synthetic data.
step = [0]
def train_extra():
    step[0] += 150
    filler_train(step[0])
user("Acceptance is low. Can we fine-tune the drafter on Kimi-K2.5 outputs?")
phase("drafter fine-tuning", 1300, 82.0, train_extra)
relaunch([], "/data/eagle3/ckpt/drafter_ft_step6000", "drafter_ft_6000.log", "Trying the fine-tuned drafter (step 6000).", 9)
phase("fine-tuned drafter", 420, 81.0)
assistant("Fine-tuning plateaued at 38% draft acceptance; throughput did not improve over the 82 tok/s baseline. I'll try n-gram speculation next, which needs no drafter.",
          bash(remote(f"grep -c 'acc@1 0.38' {LOGDIR}/train_drafter_ft.log"), "Count plateau steps"), "412")
relaunch([], DRAFT_BASE, "baseline_again.log", "Back to the base drafter before the n-gram trial.", 9)
phase("n-gram", 480, 41.0)
user("n-gram is worse than baseline (41 vs 82 tok/s). Where does the time go?")
relaunch([("SGLANG_TORCH_PROFILER_DIR", "/data/prof")], DRAFT_BASE, "profile_verify.log", "Relaunching with the torch profiler enabled to break down the verify step.", 10)
def profile_extra():
    assistant(rng.choice(["Reading the verify-step trace:", "Summing NCCL time in the trace:"]),
              bash(remote("python scripts/trace_summary.py /data/prof/latest.trace.json --step verify"), "Summarise the profile"),
              f"verify step: {rng.uniform(29.5, 30.6):.1f} ms\n  nccl all_reduce: {rng.uniform(24.6, 25.4):.1f} ms over 122 calls\n  gemm: 3.1 ms\n  attention: 1.4 ms\n  other: 0.6 ms")
phase("profiling", 900, 81.5, profile_extra)
assistant("The verify step takes ~30 ms, of which ~25 ms is NCCL all-reduce (122 calls per forward pass) over PCIe. I'll write the plan into eagle-fast-verify.md.",
          ("Write", {"file_path": f"{CWD}/notes/eagle-fast-verify.md", "content": "# Faster verify on PCIe\n\n1A. NCCL_ALGO=Tree\n1B. Fewer NCCL channels, smaller buffer\n2. FlashInfer allreduce fusion on SM120\n3. Custom allreduce (one-shot) for small messages\n4. Fewer verify all-reduces (fuse QKV/o-proj)\n5. Overlap draft and verify\n6. TP4 x 2 replicas\n7. FP8 all-reduce\n"}),
          f"File created successfully at: {CWD}/notes/eagle-fast-verify.md")
user("Good plan. Start from priority 1.")
relaunch([], DRAFT_BASE, "plain_before_nccl.log", "Relaunching without the profiler for clean NCCL experiments.", 9)
phase("plan", 1210, 82.0)

# Priority 1A: NCCL_ALGO=Tree. The story starts here and must land on 5069.
target_launch = 5068
while state["idx"] < target_launch - 2:
    filler_misc("NCCL prep")
assert state["idx"] == target_launch - 2, state["idx"]
story_start = datetime(2026, 2, 27, 10, 55, 40, tzinfo=timezone.utc)
assert state["t"] < story_start, state["t"]
state["t"] = story_start
assistant("Stopping the server for Priority 1A.", bash(remote("pkill -f sglang.launch_server; sleep 10; nvidia-smi --query-gpu=memory.used --format=csv,noheader | sort -u"), "Stop the server"), "4 MiB")
assistant("Priority 1A: NCCL_ALGO=Tree, everything else unchanged.", bash(launch_cmd([("NCCL_ALGO", "Tree")], DRAFT_BASE, "nccl_exp_1a_tree.log"), "Launch with NCCL_ALGO=Tree"), "launched")
assert state["idx"] == 5068
assistant("Waiting for readiness, and watching the log for errors.",
          bash(f"for i in $(seq 1 40); do if curl -sf http://10.23.0.17:30000/health >/dev/null; then echo READY; break; fi; "
               f"if {remote(f'grep -q RuntimeError {LOGDIR}/nccl_exp_1a_tree.log')}; then echo CRASHED; break; fi; sleep 30; done", "Wait for readiness"),
          "CRASHED", run_secs=(470, 480))
assistant("Let me see the end of the log.", bash(remote(f"tail -20 {LOGDIR}/nccl_exp_1a_tree.log"), "Read the end of the log"),
          "[2026-02-27 11:03:41 TP3] Capture cuda graph begin. This can take up to several minutes.\n"
          "Traceback (most recent call last):\n  File \"/opt/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py\", line 412, in capture\n"
          "    self.capture_one_batch_size(bs, forward)\n  File \"/opt/sglang/python/sglang/srt/distributed/device_communicators/pynccl.py\", line 131, in all_reduce\n"
          "    self.nccl.ncclAllReduce(\nRuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n"
          "[2026-02-27 11:03:42 TP3] Capture cuda graph failed: NCCL error: unhandled cuda error\n"
          "[2026-02-27 11:03:44] Received sigquit from a child process. It usually means the child failed.")
assert state["idx"] == 5070
assistant("NCCL_ALGO=Tree fails during CUDA graph capture: the Tree algorithm's kernels are not capturable on this setup. Priority 1A is out.\n\n"
          "Next: Priority 1B (fewer NCCL channels, smaller buffer). Since each launch takes 10+ minutes, I'll also apply Priority 2 — "
          "FlashInfer allreduce fusion, which SGLang only enables for SM90/SM100 — so it is active on SM120 in the same launch.",
          bash(remote("pkill -f sglang.launch_server; sleep 10; nvidia-smi --query-gpu=memory.used --format=csv,noheader | sort -u"), "Stop the server"), "4 MiB")
assert state["idx"] == 5071
assistant("Where is the fusion gated by architecture?",
          ("Grep", {"pattern": "is_sm100_supported|is_sm90_supported", "path": "python/sglang/srt/layers/communicator.py", "output_mode": "content", "-n": True}),
          "python/sglang/srt/layers/communicator.py:57:from sglang.srt.utils import is_sm90_supported, is_sm100_supported\n"
          "python/sglang/srt/layers/communicator.py:412:        and (is_sm90_supported() or is_sm100_supported())")
assistant(None, ("Read", {"file_path": f"{CWD}/python/sglang/srt/layers/communicator.py", "offset": 400, "limit": 30}),
          "   405\t    def _use_flashinfer_allreduce_fusion(self):\n   406\t        return (\n   407\t            _is_flashinfer_available\n"
          "   408\t            and global_server_args_dict[\"enable_flashinfer_allreduce_fusion\"]\n   409\t            and self.tp_size > 1\n"
          "   410\t            and not self.is_last_layer\n   411\t            and hidden_states.shape[0] <= 128\n   412\t            and (is_sm90_supported() or is_sm100_supported())\n   413\t        )")
assistant("Does this FlashInfer build ship SM120 kernels for the fused allreduce?",
          bash(remote("python -c 'import flashinfer, os; print(flashinfer.__version__); print(sorted(os.listdir(os.path.dirname(flashinfer.__file__) + \"/data\"))[:6])'"), "Check FlashInfer build"),
          "0.4.1\n['aot', 'csrc', 'cutlass', 'include', 'sm120a', 'version.txt']")
assistant("SM120 needs its own capability check; first the import.",
          ("Edit", {"file_path": f"{CWD}/python/sglang/srt/layers/communicator.py", "old_string": "from sglang.srt.utils import is_sm90_supported, is_sm100_supported", "new_string": "from sglang.srt.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported"}),
          f"The file {CWD}/python/sglang/srt/layers/communicator.py has been updated.")
assert state["idx"] == 5075
assistant("Now adding SM120 next to SM90/SM100 in the fusion gate.",
          ("Edit", {"file_path": f"{CWD}/python/sglang/srt/layers/communicator.py", "old_string": "and (is_sm90_supported() or is_sm100_supported())", "new_string": "and (is_sm90_supported() or is_sm100_supported() or is_sm120_supported())"}),
          f"The file {CWD}/python/sglang/srt/layers/communicator.py has been updated.")
assert state["idx"] == 5076
assistant("Now the server-args default: the fusion is auto-enabled only for SM90/SM100.",
          ("Grep", {"pattern": "enable_flashinfer_allreduce_fusion = True", "path": "python/sglang/srt/server_args.py", "output_mode": "content", "-n": True, "-B": 2}),
          "python/sglang/srt/server_args.py-1187-        if self.tp_size > 1 and is_flashinfer_available():\n"
          "python/sglang/srt/server_args.py-1188-            if is_sm90_supported() or is_sm100_supported():\n"
          "python/sglang/srt/server_args.py:1189:                self.enable_flashinfer_allreduce_fusion = True")
assistant("Auto-enabling it on SM120 as well.",
          ("Edit", {"file_path": f"{CWD}/python/sglang/srt/server_args.py", "old_string": "            if is_sm90_supported() or is_sm100_supported():\n                self.enable_flashinfer_allreduce_fusion = True", "new_string": "            if is_sm90_supported() or is_sm100_supported() or is_sm120_supported():\n                self.enable_flashinfer_allreduce_fusion = True"}),
          f"The file {CWD}/python/sglang/srt/server_args.py has been updated.")
assert state["idx"] == 5078
assistant("Syncing the patched files to the server machine.",
          bash(f"rsync -az python/sglang/srt/layers/communicator.py python/sglang/srt/server_args.py {HOST}:/opt/sglang/python/sglang/srt/ --relative && echo synced", "Sync patches"), "synced")
assert state["idx"] == 5079
state["t"] = datetime(2026, 2, 27, 11, 8, 22, tzinfo=timezone.utc)
assistant("Launching Priority 1B (NCCL_MIN_NCHANNELS=1, NCCL_MAX_NCHANNELS=2, NCCL_BUFFSIZE=131072) together with the FlashInfer allreduce fusion patch.",
          bash(launch_cmd([("NCCL_MIN_NCHANNELS", "1"), ("NCCL_MAX_NCHANNELS", "2"), ("NCCL_BUFFSIZE", "131072")], DRAFT_BASE, "nccl_exp_1b_fewchan_fusion.log"), "Launch 1B + fusion"),
          "launched")
assert state["idx"] == 5080
IMPORT_WARN = ("[2026-02-27 11:09:{s:02d} TP{tp}] Ignore import error when loading sglang.srt.models.{m}: "
               "Exception: No module named 'transformers.models.{m}'")
assistant("Polling until the server is ready; if the log shows an exception it has crashed.",
          bash(f"for i in $(seq 1 40); do if curl -sf http://10.23.0.17:30000/health >/dev/null; then echo READY; break; fi; "
               f"if {remote(f'grep -q Exception {LOGDIR}/nccl_exp_1b_fewchan_fusion.log')}; then echo CRASHED; "
               f"{remote(f'grep -m3 Exception {LOGDIR}/nccl_exp_1b_fewchan_fusion.log')}; break; fi; sleep 30; done", "Wait for readiness, detect crashes"),
          "CRASHED\n" + "\n".join(IMPORT_WARN.format(s=12 + i, tp=i, m=m) for i, m in enumerate(["glm4v_moe", "mllama4", "phi4mm"])),
          run_secs=(35, 40))
assert state["idx"] == 5081
state["t"] = datetime(2026, 2, 27, 11, 10, 51, tzinfo=timezone.utc)
SERVER_ARGS = ("[2026-02-27 11:08:57] server_args=ServerArgs(model_path='/models/Kimi-K2.5', tokenizer_path='/models/Kimi-K2.5', tokenizer_mode='auto', "
               "skip_tokenizer_init=False, load_format='auto', model_loader_extra_config='{}', trust_remote_code=True, context_length=None, is_embedding=False, "
               "enable_multimodal=None, revision=None, model_impl='auto', host='127.0.0.1', port=30000, skip_server_warmup=False, warmups=None, nccl_port=None, "
               "dtype='auto', quantization=None, quantization_param_path=None, kv_cache_dtype='auto', mem_fraction_static=0.85, max_running_requests=None, "
               "max_queued_requests=9223372036854775807, max_total_tokens=None, chunked_prefill_size=8192, max_prefill_tokens=16384, schedule_policy='fcfs', "
               "schedule_conservativeness=1.0, page_size=1, hybrid_kvcache_ratio=None, swa_full_tokens_ratio=0.8, disable_hybrid_swa_memory=False, device='cuda', "
               "tp_size=8, pp_size=1, max_micro_batch_size=None, stream_interval=1, stream_output=False, random_seed=20417, constrained_json_whitespace_pattern=None, "
               "watchdog_timeout=300, dist_timeout=None, download_dir=None, base_gpu_id=0, gpu_id_step=1, sleep_on_idle=False, log_level='info', log_level_http=None, "
               "log_requests=False, log_requests_level=2, crash_dump_folder=None, show_time_cost=False, enable_metrics=False, enable_metrics_for_all_schedulers=False, "
               "bucket_time_to_first_token=None, bucket_inter_token_latency=None, bucket_e2e_request_latency=None, collect_tokens_histogram=False, decode_log_interval=40, "
               "enable_request_time_stats_logging=False, kv_events_config=None, api_key=None, served_model_name='/models/Kimi-K2.5', chat_template=None, "
               "completion_template=None, file_storage_path='sglang_storage', enable_cache_report=False, reasoning_parser=None, tool_call_parser=None, "
               "dp_size=1, load_balance_method='round_robin', dist_init_addr=None, nnodes=1, node_rank=0, json_model_override_args='{}', preferred_sampling_params=None, "
               "enable_lora=None, max_lora_rank=None, lora_target_modules=None, lora_paths=None, max_loras_per_batch=8, lora_backend='triton', attention_backend='flashinfer', "
               "decode_attention_backend=None, prefill_attention_backend=None, sampling_backend='flashinfer', grammar_backend='xgrammar', mm_attention_backend=None, "
               "speculative_algorithm='EAGLE3', speculative_draft_model_path='/models/AQ-MedAI-K2-eagle3', speculative_num_steps=3, speculative_eagle_topk=1, "
               "speculative_num_draft_tokens=4, speculative_accept_threshold_single=1.0, speculative_accept_threshold_acc=1.0, speculative_token_map=None, "
               "ep_size=1, moe_a2a_backend=None, enable_flashinfer_cutlass_moe=False, enable_flashinfer_trtllm_moe=False, enable_flashinfer_allreduce_fusion=True, "
               "deepep_mode='auto', ep_num_redundant_experts=0, ep_dispatch_algorithm='static', init_expert_location='trivial', enable_eplb=False, "
               "eplb_algorithm='auto', eplb_rebalance_num_iterations=1000, eplb_rebalance_layers_per_chunk=None, expert_distribution_recorder_mode=None, "
               "expert_distribution_recorder_buffer_size=1000, enable_expert_distribution_metrics=False, deepep_config=None, moe_dense_tp_size=None, "
               "enable_hierarchical_cache=False, hicache_ratio=2.0, hicache_size=0, hicache_write_policy='write_through_selective', hicache_io_backend='', "
               "hicache_storage_backend=None, enable_double_sparsity=False, ds_channel_config_path=None, ds_heavy_channel_num=32, ds_heavy_token_num=256, "
               "ds_heavy_channel_type='qk', ds_sparse_decode_threshold=4096, disable_radix_cache=False, cuda_graph_max_bs=8, cuda_graph_bs=None, disable_cuda_graph=False, "
               "disable_cuda_graph_padding=False, enable_profile_cuda_graph=False, enable_nccl_nvls=False, enable_tokenizer_batch_encode=False, "
               "disable_outlines_disk_cache=False, disable_custom_all_reduce=False, enable_mscclpp=False, disable_overlap_schedule=False, enable_mixed_chunk=False, "
               "enable_dp_attention=False, enable_dp_lm_head=False, enable_two_batch_overlap=False, tbo_token_distribution_threshold=0.48, enable_torch_compile=False, "
               "torch_compile_max_bs=32, torchao_config='', enable_nan_detection=False, enable_p2p_check=False, triton_attention_reduce_in_fp32=False, "
               "triton_attention_num_kv_splits=8, num_continuous_decode_steps=1, delete_ckpt_after_loading=False, enable_memory_saver=False, allow_auto_truncate=False, "
               "enable_custom_logit_processor=False, flashinfer_mla_disable_ragged=False, disable_shared_experts_fusion=False, disable_chunked_prefix_cache=False, "
               "disable_fast_image_processor=False, enable_return_hidden_states=False, enable_triton_kernel_moe=False, warmup_failed_requests_abort=True, "
               "debug_tensor_dump_output_folder=None, debug_tensor_dump_input_file=None, debug_tensor_dump_inject=False, debug_tensor_dump_prefill_only=False, "
               "disaggregation_mode='null', disaggregation_transfer_backend='mooncake', disaggregation_bootstrap_port=8998, disaggregation_decode_tp=None, "
               "disaggregation_decode_dp=None, disaggregation_prefill_pp=1, disaggregation_ib_device=None, num_reserved_decode_tokens=512, pdlb_url=None, "
               "custom_weight_loader=[], weight_loader_disable_mmap=False, enable_pdmux=False, sm_group_num=3, enable_ep_moe=False, enable_deepep_moe=False, "
               "enable_ipc_transfer_on_failed_alloc=False, report_failed_requests_to_log=True)")
LOG = f"{LOGDIR}/nccl_exp_1b_fewchan_fusion.log"
assistant("The server crashed during model loading. Let me find the error:",
          bash(remote(f"grep -i \"exception\\|error\\|failed\\|traceback\\|allreduce\\|fusion\\|ipc\" {LOG} | head -20"), "Look for the error"),
          SERVER_ARGS + "\n" + "\n".join(IMPORT_WARN.format(s=12 + i, tp=i, m=m) for i, m in enumerate(["glm4v_moe", "mllama4", "phi4mm", "qwen3_vl_moe"])))
assert state["idx"] == 5082
state["t"] = datetime(2026, 2, 27, 11, 13, 37, tzinfo=timezone.utc)
assistant("The FlashInfer allreduce fusion auto-enable worked (`enable_flashinfer_allreduce_fusion=True` in ServerArgs). Now let me find the actual error:",
          bash(remote(f"grep -A5 \"Traceback\\|Exception\\|NCCL error\\|RuntimeError\\|sigquit\" {LOG} | tail -30"), "Find the traceback"),
          SERVER_ARGS.replace("server_args=", "server_args=", 1) + "\n--\n" + "\n".join(IMPORT_WARN.format(s=12 + i, tp=i, m=m) for i, m in enumerate(["glm4v_moe", "mllama4", "phi4mm", "qwen3_vl_moe", "step3_vl"])),
          thinking="Traceback, NCCL error, RuntimeError or sigquit would show a real crash. The ServerArgs line may match too, but the context lines should show the error.")
assert state["idx"] == 5083
state["t"] = datetime(2026, 2, 27, 11, 17, 31, tzinfo=timezone.utc)
assistant("The output is too long — that's just the ServerArgs dump. Let me search specifically for Python tracebacks:",
          bash(f"ssh {HOST} 'tail -50 {LOG}' 2>&1", "Read the end of the log"),
          "[2026-02-27 11:17:29 TP7] Using CompressedTensorsWNA16MarlinMoEMethod\n[2026-02-27 11:17:29 TP6] Using CompressedTensorsWNA16MarlinMoEMethod\n"
          "[2026-02-27 11:17:29 TP4] Using CompressedTensorsWNA16MarlinMoEMethod\n\n"
          "Loading safetensors checkpoint shards:   0% Completed | 0/64 [00:00<?, ?it/s]\n\n"
          "Loading safetensors checkpoint shards:   2% Completed | 1/64 [00:00<00:36,  1.75it/s]\n\n"
          "Loading safetensors checkpoint shards:   3% Completed | 2/64 [00:01<00:33,  1.83it/s]\n",
          thinking="Both greps return the ServerArgs line because it contains 'fusion', 'allreduce' and 'failed' (warmup_failed_requests_abort, report_failed_requests_to_log). "
                   "If the server crashed, the error would be at the end of the log. Read the last lines instead of matching patterns.")
assert state["idx"] == 5084
assistant("It's still loading! It didn't crash — my 'crash detection' grep matched 'Exception' in the import error lines, not in an actual error. Let me wait for it properly.",
          bash("for i in $(seq 1 23); do if curl -sf http://10.23.0.17:30000/health >/dev/null; then echo READY; break; fi; "
               "echo \"not ready ($i/23)\"; sleep 25; done; curl -sf http://10.23.0.17:30000/health >/dev/null || echo \"timed out after 23 attempts\"", "Wait for readiness"),
          "\n".join(f"not ready ({i}/23)" for i in range(1, 24)) + "\ntimed out after 23 attempts",
          run_secs=(580, 585))
assert state["idx"] == 5085
state["t"] = datetime(2026, 2, 27, 11, 39, 2, tzinfo=timezone.utc)
user("")
assert state["idx"] == 5086
RECAP = """## Where we are — full status of the Kimi-K2.5 speculative-decoding campaign

### Project goal
Raise Kimi-K2.5 decode throughput on the 8× RTX PRO 6000 Blackwell box (SM120, 96 GB each, PCIe Gen5 only, no NVLink) using SGLang speculative decoding with an EAGLE-3 drafter, at batch size 1–8 for interactive use. Target: clearly above the 82 tok/s baseline; stretch goal 120 tok/s.

### Performance reality
| configuration | throughput | draft acceptance | notes |
|---|---|---|---|
| EAGLE-3, AQ-MedAI K2 drafter (baseline) | **82 tok/s** | ~36% | 3 steps, top-k 1, 4 draft tokens |
| EAGLE-3, drafter fine-tuned on synth_100k (step 6000) | 81 tok/s | 38% (plateau) | no gain over baseline |
| n-gram speculation | **41 tok/s** | — | half the baseline; the n-gram matcher rarely hits on this workload |

The fine-tuning run (`scripts/train_drafter.py`, 100k synthetic Kimi-K2.5 completions generated by `scripts/gen_synth_data.py`) plateaued at 38% acc@1 after ~4,000 steps; more data did not move it. The drafter is not what limits us.

### Root cause analysis
The torch-profiler run (`SGLANG_TORCH_PROFILER_DIR=/data/prof`, summarised with `scripts/trace_summary.py`) shows where a verify step goes:
- verify step: ~30 ms in total
- NCCL all-reduce: ~25 ms, spread over **122 all-reduce calls per forward pass** (two per layer plus embeddings and logits)
- GEMMs ~3.1 ms, attention ~1.4 ms, everything else ~0.6 ms

With tensor parallelism over 8 GPUs on PCIe, every all-reduce pays PCIe latency, and the verify step is latency-bound on these small messages. Anything that reduces the number of all-reduces, their latency, or overlaps them with compute helps; a better drafter alone cannot.

### The plan (notes/eagle-fast-verify.md)
1. **1A** `NCCL_ALGO=Tree` — lower latency for small messages on PCIe.
2. **1B** fewer NCCL channels and a smaller buffer (`NCCL_MIN_NCHANNELS`, `NCCL_MAX_NCHANNELS`, `NCCL_BUFFSIZE`) — less setup per small all-reduce.
3. **2** FlashInfer allreduce fusion (all-reduce + residual + RMSNorm in one kernel) on SM120; SGLang only enables it for SM90/SM100.
4. **3** one-shot custom allreduce for messages under 512 KB.
5. **4** fewer verify all-reduces: fuse QKV and o-proj reductions.
6. **5** overlap the draft of step n+1 with the verify of step n.
7. **6** TP4 × 2 replicas instead of TP8.
8. **7** FP8 all-reduce payloads.

### Experiments so far (today)
- **1A — NCCL_ALGO=Tree** (log `nccl_exp_1a_tree.log`): the server failed during CUDA graph capture with `RuntimeError: NCCL error: unhandled cuda error`; the Tree algorithm does not work under graph capture here. Dropped.
- **1B + 2 combined** (log `nccl_exp_1b_fewchan_fusion.log`): launched with `NCCL_MIN_NCHANNELS=1 NCCL_MAX_NCHANNELS=2 NCCL_BUFFSIZE=131072` *and* the SM120 patch that auto-enables FlashInfer allreduce fusion. I combined them to save one 10-minute launch.
  - The patch works: the ServerArgs line shows `enable_flashinfer_allreduce_fusion=True`.
  - My polling loop reported CRASHED, but that was wrong: its `grep -q Exception` matched harmless "Ignore import error … Exception: No module named …" lines that SGLang prints for optional model classes.
  - Two greps for the error returned only the ServerArgs dump (it contains "fusion", "allreduce" and "failed" in option names). `tail -50` showed the truth: checkpoint shards were loading (3% at 11:17).
  - The corrected wait loop (health check only) then timed out after 23 attempts, about 10 minutes, without the server becoming ready.

### Current state
- The 1B+2 server was started at 11:08 on 10.23.0.17 and had not answered `/health` by 11:27. It is either still loading the 64 shards (547 GB) slowly — fewer NCCL channels could slow the weight broadcast — or it is hung in the first fused all-reduce.
- Because both changes went into one launch, a failure cannot be attributed to either change.
- Patched files (synced to /opt/sglang on the server):
  - `python/sglang/srt/layers/communicator.py` — SM120 added to the fusion gate, `is_sm120_supported` imported
  - `python/sglang/srt/server_args.py` — fusion auto-enabled on SM120

### Files and paths
- `notes/eagle-fast-verify.md` — the ranked plan above
- `notes/results.md` — every measurement so far
- `scripts/bench_specdec.py` — throughput benchmark (`--num-prompts 128 --max-new-tokens 512`)
- `scripts/trace_summary.py` — per-step profile breakdown
- `scripts/train_drafter.py`, `configs/drafter_k25.yaml` — the abandoned fine-tuning
- logs: `/data/eagle3/synth_100k/logs/` (`baseline.log`, `nccl_exp_1a_tree.log`, `nccl_exp_1b_fewchan_fusion.log`, …)
- models: `/models/Kimi-K2.5`, `/models/AQ-MedAI-K2-eagle3`, fine-tuned drafters in `/data/eagle3/ckpt/`

### Next steps
1. Look at the 1B+2 server now: `tail` the log for the shard counter and any traceback; check GPU utilisation and whether the process is alive.
2. If it is hung or crashed, split the experiment: launch 1B alone (channels/buffer), then 2 alone (fusion), one change per launch, and benchmark each against the 82 tok/s baseline with the same 128 prompts.
3. Fix the wait loop for good: check `/health` only, and look for `Traceback` or `sigquit` — never a bare `Exception` — when deciding that the server crashed.
4. Then Priority 3 (one-shot custom allreduce for the small verify messages), which needs no NCCL changes at all.
5. Keep notes/results.md updated after every run."""
assistant(RECAP, think_secs=(40, 60))
assert state["idx"] == 5087

for d in out:
    sys.stdout.write(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n")
