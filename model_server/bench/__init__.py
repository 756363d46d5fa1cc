"""Load benchmark for a Statespeak endpoint: time to first audio, stalls against a real-time player,
rejections, per concurrency level; `python -m model_server.bench --help`.

Import-light on purpose (no torch): it runs on any client machine with httpx and websockets.
"""
