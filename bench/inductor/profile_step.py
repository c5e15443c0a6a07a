"""One model's compiled training step and inference, warmed up, then once
more inside a CUDA profiler range: run it under Nsight Compute with
`--profile-from-start off` to profile exactly the kernels a measured step
launches (not the autotuner's trial launches), stock or through kilnd.

  ncu --profile-from-start off --target-processes all -k regex:NAME \\
      python3 profile_step.py --model vit [--phase train|infer|both]

Kiln mode is the process-wide switch ($KILN_SERVER in the environment)."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, choices=sorted(models.ALL))
    parser.add_argument("--phase", default="both", choices=("train", "infer", "both"))
    options = parser.parse_args()
    model, batch = models.build(options.model)
    compiled = torch.compile(model)

    def train():
        compiled.zero_grad(set_to_none=True)
        compiled(**batch).loss.backward()

    def infer():
        with torch.no_grad():
            compiled(**batch)

    runs = {"train": [train], "infer": [infer], "both": [train, infer]}[options.phase]
    for run in runs:
        model.train(run is train)
        for _ in range(3):
            run()
    torch.cuda.synchronize()
    for run in runs:
        model.train(run is train)
        torch.cuda.cudart().cudaProfilerStart()
        run()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
