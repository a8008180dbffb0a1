import json, os, re, signal, socket, struct, subprocess
def wav(seed):
    frames = b"".join(struct.pack("<h", (i * seed) % 20000 - 10000) for i in range(8000))
    hdr = b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 16000, 32000, 2, 16)
    return hdr + b"data" + struct.pack("<I", len(frames)) + frames
open("corpus/a.wav", "wb").write(wav(37)); open("corpus/a.txt","w").write("the cat sat on the mat\n")
open("corpus/b.wav", "wb").write(wav(91)); open("corpus/b.txt","w").write("a dog ran in the park\n")
B="/tmp/w2r/benchseal"
s = socket.socket(); s.bind(("127.0.0.1", 0)); otlp = "127.0.0.1:%d" % s.getsockname()[1]; s.close()
sims, urls = [], {}
for name, persona, extra in [("vllm", "vllm", ["--otlp-traces-endpoint", "http://" + otlp]), ("sglang-omni", "sglang-omni", [])]:
    p = subprocess.Popen([B, "sim", "--addr", "127.0.0.1:0", "--persona", persona, "--corpus", "corpus",
                          "--base-latency", "40ms", "--max-running", "2"] + extra, stderr=subprocess.PIPE)
    urls[name] = re.search(r"listening on (\S+)", p.stderr.readline().decode()).group(1)
    sims.append(p)
os.mkdir("events")
r = subprocess.run([B, "run", "--target", "vllm=" + urls["vllm"], "--target", "sglang-omni=" + urls["sglang-omni"], "--corpus", "corpus",
                    "--concurrency", "1,4", "--requests", "8", "--repeats", "2", "--no-cache-probe",
                    "--otlp-listen", otlp, "--server-events", "sglang-omni=" + os.path.abspath("events"), "--out", "out"],
                   capture_output=True, text=True, timeout=300)
for p in sims:
    p.send_signal(signal.SIGINT); p.wait(timeout=30)
print(r.returncode, r.stderr)
