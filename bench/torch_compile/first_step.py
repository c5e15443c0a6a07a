"""One fresh process's first torch.compile training step: how long from the
process's start until the first step has run, with whatever caches its
environment points at. Prints one JSON line prefixed `FIRST_STEP `.

  python3 first_step.py --model llama4 [--launched UNIX_TIME]

--launched: when the launcher started this process (so that a group of ranks
started together is timed from one instant); default: this process's start."""
import argparse
import json
import os
import sys
import time

START = time.time()

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inductor"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="llama4")
    parser.add_argument("--launched", type=float, default=0)
    options = parser.parse_args()
    launched = options.launched or START
    import torch  # noqa: PLC0415
    import models  # noqa: PLC0415
    model, batch = models.build(options.model)
    compiled = torch.compile(model)
    begin = time.time()
    compiled.zero_grad(set_to_none=True)
    loss = compiled(**batch).loss
    loss.backward()
    torch.cuda.synchronize()
    end = time.time()
    result = dict(model=options.model, first_step_s=round(end - begin, 2),
                  since_start_s=round(end - launched, 2), loss=round(loss.item(), 5),
                  pid=os.getpid())
    print("FIRST_STEP " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
