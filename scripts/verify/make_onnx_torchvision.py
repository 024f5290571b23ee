#!/usr/bin/env python3
"""Exports torchvision's models (random weights, seeded) to ONNX with
PyTorch's TorchScript exporter at opsets 13 and 17 (ViT: 14 and 17), with onnxruntime's
output for one seeded input, into OUT/NAME_opsetN/{model.onnx,input.npy,output.npy}.
Also one model through the dynamo exporter (needs onnxscript).

torchvision from PyPI is a CUDA build; beside the CPU torch its import fails
on three C++ operators (nms, qnms, roi_align) it registers kernels for: they
are declared here first (no kernels: the classification and segmentation
models never call them).

Usage: make_onnx_torchvision.py OUT [NAME ...]
"""

import sys
from pathlib import Path

import numpy as np
import torch

library = torch.library.Library("torchvision", "DEF")
for schema in ["nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
               "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
               "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
               "int sampling_ratio, bool aligned) -> Tensor"]:
    library.define(schema)

import onnxruntime  # noqa: E402
from torchvision import models  # noqa: E402
from torchvision.models.segmentation import lraspp_mobilenet_v3_large  # noqa: E402


class SegmentationHead(torch.nn.Module):
    """A small encoder-decoder: strided convolutions down, ConvTranspose and
    a nearest Resize up (as segmentation decoders write them)."""

    def __init__(self):
        super().__init__()
        self.down = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(), torch.nn.Conv2d(16, 32, 3, 2, 1), torch.nn.ReLU())
        self.up = torch.nn.ConvTranspose2d(32, 16, 2, 2)
        self.classes = torch.nn.Conv2d(16, 5, 1)

    def forward(self, x):
        y = self.classes(torch.relu(self.up(self.down(x))))
        return torch.nn.functional.interpolate(y, scale_factor=2.0, mode="nearest")


def randomize(model, seed):
    """Batch-norm statistics and affine terms drawn at random (not torchvision's
    1 and 0), and every weight scaled to keep activations near 1 through the
    depth: with the stock initialization efficientnet_b0 and mobilenet_v3_small
    output values near 1e-14 and 1e-9, which any comparison would pass."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (torch.nn.BatchNorm2d, torch.nn.LayerNorm)) and module.weight is not None:
                module.weight.copy_(torch.rand(module.weight.shape, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(module.bias.shape, generator=generator) * 0.1)
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.copy_(torch.randn(module.num_features, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
            if isinstance(module, (torch.nn.Linear, torch.nn.Conv2d, torch.nn.ConvTranspose2d)):
                fan_in = module.weight[0].numel()
                module.weight.copy_(torch.randn(module.weight.shape, generator=generator) * (2.0 / fan_in) ** 0.5)
                if module.bias is not None:
                    module.bias.copy_(torch.randn(module.bias.shape, generator=generator) * 0.1)


MODELS = {
    "resnet18": (lambda: models.resnet18(weights=None), 224),
    "mobilenet_v3_small": (lambda: models.mobilenet_v3_small(weights=None), 224),
    "efficientnet_b0": (lambda: models.efficientnet_b0(weights=None), 224),
    "squeezenet1_1": (lambda: models.squeezenet1_1(weights=None), 224),
    "densenet121": (lambda: models.densenet121(weights=None), 224),
    "segmentation_head": (SegmentationHead, 64),
    "vit_small": (lambda: models.VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64,
                                                    mlp_dim=128, num_classes=10), 64),
    # Convolutions mixed with tensor operations: channels-last layer norms between them, a rank-5 shuffle after Slices.
    "convnext_tiny": (lambda: models.convnext_tiny(weights=None), 64),
    "shufflenet_v2_x0_5": (lambda: models.shufflenet_v2_x0_5(weights=None), 64),
}


def build(name, index):
    """Model NAME in evaluation mode with its seeded random weights, the seeded input x, and torch's output."""
    make, size = MODELS[name]
    torch.manual_seed(index)
    model = make().eval()
    randomize(model, index)
    x = torch.from_numpy(np.random.default_rng(index).standard_normal((1, 3, size, size)).astype(np.float32))
    with torch.no_grad():
        reference = model(x)
        reference = (reference["out"] if isinstance(reference, dict) else reference).numpy()
        # Logits far above 10 (shufflenet's ~700 with these weights) put float32's rounding of the
        # sums alone past 1e-4 of the smaller ones: the last linear layer scaled down to keep them near 10.
        last = [module for module in model.modules() if isinstance(module, torch.nn.Linear)][-1:]
        if np.abs(reference).max() > 100 and last:
            factor = 10 / np.abs(reference).max()
            last[0].weight.mul_(factor)
            last[0].bias.mul_(factor)
            reference = model(x).numpy()
    return model, x, reference


def main():
    out = Path(sys.argv[1])
    names = sys.argv[2:] or list(MODELS)
    for index, name in enumerate(names):
        model, x, reference = build(name, index)
        # ViT's attention exports from opset 14 (scaled_dot_product_attention).
        exports = [(opset, False) for opset in ((14, 17) if name.startswith("vit") else (13, 17))] + ([(18, True)] if name == "resnet18" else [])
        for opset, dynamo in exports:
            folder = out / f"{name}_opset{opset}{'_dynamo' if dynamo else ''}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "model.onnx"
            if dynamo:
                torch.onnx.export(model, (x,), str(path), opset_version=opset, dynamo=True, input_names=["input"], output_names=["output"])
            else:
                torch.onnx.export(model, (x,), str(path), opset_version=opset, dynamo=False, input_names=["input"], output_names=["output"],
                                  dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
            session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            output = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
            excess = (np.abs(output - reference) - 1e-4 * np.maximum(1, np.abs(reference))).max()
            assert np.abs(output).max() > 0.1, f"{folder.name}: outputs near 0 ({np.abs(output).max():.3g}) would prove nothing"
            np.save(folder / "input.npy", x.numpy())
            np.save(folder / "output.npy", output)
            print(f"{folder.name}: {path.stat().st_size / 1e6:.1f} MB, output {output.shape}, onnxruntime vs torch excess {excess:.2e}")


if __name__ == "__main__":
    main()
