"""Runs an ML Program package on PyTorch, as coremltools reads it, and compares with a reference output.

Usage: run_mlprogram_torch.py PACKAGE INPUT REFERENCE.npy [--bgr] [--output NAME]

Core ML does not run on Linux, and this toolkit's runtime does not read
programs yet (issue 36). This is the independent check of what the program
computes: coremltools' MIL-proto loader builds its own program from the
package (its op definitions and type inference), and each operation is
executed with PyTorch's kernel of the formula coremltools' iOS15 op
definition states (defs/iOS15/*.py: conv's custom pad [top, bottom, left,
right], local_response_norm's alpha/size, avg_pool's
exclude_padding_from_average, clip's alpha/beta bounds, ...). The result is
compared with REFERENCE, the source framework's own output (OpenCV dnn for
Caffe, Keras) from the fixtures, at 1e-4 * max(1, |ref|).

A program computing in float16 (coremltools' default): each operation whose
output MIL declares float16 computes in float32 from its float16 inputs and
constants, its result rounded to float16 (torch's .half(), nearest even);
`cast` converts. The bound against the float32 framework's output is then
norm-wise: max |ours - ref| <= k * 2**-11 * max(1, max |ref|), k the number
of operations with float16 outputs (2**-11: float16's unit roundoff; each
rounding adds at most that relative error to the values it rounds, and the
bound takes no operation as amplifying an earlier one's, an assumption the
measured error is printed next to). Not element-wise: a sum of large terms
of opposite signs (a convolution of random weights) leaves small outputs
with the absolute error of the large terms.

INPUT: a PNG (read in RGB, or BGR with --bgr: the program's image input
takes the pixels in its color space's order) or a .npy in HWC (Keras
fixtures) or CHW layout. A classifier's probabilities are compared (the
classify operation's input); otherwise the program's output NAME, or its
single one. A detector's package holds a pipeline: its program (the
first model) is run, and NAME picks one of its two rows.

Compressed constants (iOS 16's constexpr_affine_dequantize and
constexpr_lut_to_dense) are the values coremltools' op definitions
decompress them to (`materialized_val_inference`): REFERENCE may then be
coreml-predict's output of the same package (mlprogram_compressed.sh), so
that the decompression and every operation after it are checked together.
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F
import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_to_pymil
from coremltools.converters.mil.mil import types


def widened(x):
    return x.float() if isinstance(x, torch.Tensor) and x.dtype == torch.float16 else x


def arg(op, name, env):
    var = op.inputs.get(name)
    if var is None:
        return None
    if isinstance(var, (list, tuple)):
        return [widened(env[v.name]) for v in var]
    return widened(env[var.name])


def value(x):
    return x.tolist() if isinstance(x, torch.Tensor) else x


def scalar(x):
    return float(x.reshape(-1)[0]) if isinstance(x, torch.Tensor) else float(x)


def padded(x, pad, fill=0.0):
    top, bottom, left, right = [int(p) for p in value(pad)]
    return F.pad(x, (left, right, top, bottom), value=fill)


def run(op, env):
    t, a = op.op_type, (lambda name: arg(op, name, env))
    if t.startswith("constexpr_"):
        # A compressed constant, decompressed by coremltools' own op definition (defs/iOS16/constexpr_ops.py).
        return torch.tensor(np.asarray(op.materialized_val_inference()))
    if t == "const":
        val = np.asarray(op.outputs[0].val)
        return torch.tensor(val) if val.dtype.kind in "fiub" else op.outputs[0].val  # strings (pad_type, classes) as they are
    if t == "conv":
        assert value(a("pad_type")) == "custom"
        x = padded(a("x"), a("pad"))
        return F.conv2d(x, a("weight"), a("bias"), stride=value(a("strides")), dilation=value(a("dilations")), groups=int(value(a("groups"))))
    if t == "conv_transpose":
        # The full transposed convolution, less pad [top, bottom, left, right] (custom padding).
        assert value(a("pad_type")) == "custom"
        top, bottom, left, right = [int(p) for p in value(a("pad"))]
        y = F.conv_transpose2d(a("x"), a("weight"), a("bias"), stride=value(a("strides")), dilation=value(a("dilations")),
                               groups=int(value(a("groups"))))
        return y[..., top:y.shape[-2] - bottom, left:y.shape[-1] - right]
    if t in ("max_pool", "avg_pool"):
        assert value(a("pad_type")) == "custom" and not bool(value(a("ceil_mode")))
        kernel, stride = value(a("kernel_sizes")), value(a("strides"))
        if t == "max_pool":
            return F.max_pool2d(padded(a("x"), a("pad"), fill=-float("inf")), kernel, stride)
        x = a("x")
        summed = F.avg_pool2d(padded(x, a("pad")), kernel, stride, divisor_override=1)
        if bool(value(a("exclude_padding_from_average"))):
            counts = F.avg_pool2d(padded(torch.ones_like(x[:, :1]), a("pad")), kernel, stride, divisor_override=1)
        else:
            counts = torch.full_like(summed[:, :1], float(kernel[0] * kernel[1]))
        return summed / counts
    if t in ("reduce_mean", "reduce_max"):
        axes, keep = value(a("axes")), bool(value(a("keep_dims")))
        return torch.amax(a("x"), dim=axes, keepdim=keep) if t == "reduce_max" else torch.mean(a("x"), dim=axes, keepdim=keep)
    if t == "linear":
        return F.linear(a("x"), a("weight"), a("bias"))
    if t == "reshape":
        return a("x").reshape(value(a("shape")))
    if t == "transpose":
        return a("x").permute(value(a("perm")))
    if t == "concat":
        assert not bool(value(a("interleave")))
        return torch.cat(a("values"), dim=int(value(a("axis"))))
    if t == "softmax":
        return torch.softmax(a("x"), dim=int(value(a("axis"))))
    if t == "local_response_norm":
        return F.local_response_norm(a("x"), int(value(a("size"))), alpha=scalar(a("alpha")), beta=scalar(a("beta")), k=scalar(a("k")))
    if t == "batch_norm":
        return F.batch_norm(a("x"), a("mean"), a("variance"), a("gamma"), a("beta"), training=False, eps=scalar(a("epsilon")))
    if t == "add":
        return a("x") + a("y")
    if t == "mul":
        return a("x") * a("y")
    if t == "identity":
        return a("x")
    if t == "slice_by_index":
        for mask in ("begin_mask", "end_mask", "squeeze_mask"):
            assert a(mask) is None or not bool(torch.as_tensor(a(mask)).any()), mask
        begin, end = value(a("begin")), value(a("end"))
        stride = value(a("stride")) if a("stride") is not None else [1] * len(begin)
        return a("x")[tuple(slice(int(b), int(e), int(s)) for b, e, s in zip(begin, end, stride))]
    if t == "exp":
        return torch.exp(a("x"))
    if t == "upsample_nearest_neighbor":
        return F.interpolate(a("x"), scale_factor=(int(value(a("scale_factor_height"))), int(value(a("scale_factor_width")))), mode="nearest")
    if t == "upsample_bilinear":
        scale = (int(value(a("scale_factor_height"))), int(value(a("scale_factor_width"))))
        return F.interpolate(a("x"), scale_factor=scale, mode="bilinear", align_corners=bool(value(a("align_corners"))))
    if t == "pad":
        top, bottom, left, right = [int(p) for p in value(a("pad"))]
        mode = value(a("mode")) if op.inputs.get("mode") is not None else "constant"
        fill = scalar(a("constant_val")) if op.inputs.get("constant_val") is not None else 0.0
        return F.pad(a("x"), (left, right, top, bottom), mode=mode, **({"value": fill} if mode == "constant" else {}))
    if t == "crop":
        (top, bottom), (left, right) = value(a("crop_height")), value(a("crop_width"))
        x = a("x")
        return x[..., top:x.shape[-2] - bottom, left:x.shape[-1] - right]
    if t in ("sqrt", "exp", "abs"):
        return getattr(torch, t)(a("x"))
    if t == "rsqrt":
        return torch.rsqrt(a("x") + scalar(a("epsilon")))
    if t == "inverse":
        return 1 / (a("x") + scalar(a("epsilon")))
    if t == "log":
        return torch.log(a("x") + scalar(a("epsilon")))
    if t == "pow":
        return torch.pow(a("x"), scalar(a("y")))
    if t == "threshold":
        return torch.clamp(a("x"), min=scalar(a("alpha")))
    if t in ("maximum", "minimum"):
        return (torch.maximum if t == "maximum" else torch.minimum)(a("x"), a("y"))
    if t == "cast":
        return a("x").half() if value(a("dtype")) == "fp16" else a("x").float()
    unary = {"relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "softsign": F.softsign, "softplus": F.softplus}
    if t in unary:
        return unary[t](a("x"))
    if t == "leaky_relu":
        return F.leaky_relu(a("x"), scalar(a("alpha")))
    if t == "clip":
        return torch.clamp(a("x"), scalar(a("alpha")), scalar(a("beta")))
    if t == "elu":
        return F.elu(a("x"), scalar(a("alpha")))
    if t == "thresholded_relu":
        x = a("x")
        return torch.where(x > scalar(a("alpha")), x, torch.zeros_like(x))
    if t == "prelu":
        x, alpha = a("x"), a("alpha")
        return torch.where(x >= 0, x, x * alpha.reshape(1, -1, 1, 1))
    if t == "linear_activation":
        return scalar(a("alpha")) * a("x") + scalar(a("beta"))
    if t == "scaled_tanh":
        return scalar(a("alpha")) * torch.tanh(scalar(a("beta")) * a("x"))
    if t == "sigmoid_hard":
        return torch.clamp(scalar(a("alpha")) * a("x") + scalar(a("beta")), 0, 1)
    raise SystemExit(f"run_mlprogram_torch: no kernel here for MIL op {t}")


def load_input(path, shape, bgr):
    if path.endswith(".png"):
        from PIL import Image
        pixels = np.asarray(Image.open(path).convert("L" if shape[1] == 1 else "RGB"), dtype=np.float32)  # an image input: [1, C, H, W]
        pixels = pixels[:, :, None] if pixels.ndim == 2 else pixels
        if bgr:
            pixels = pixels[:, :, ::-1]
        data = pixels.transpose(2, 0, 1)
    else:
        data = np.load(path).astype(np.float32)
        channels = shape[1] if len(shape) == 4 else shape[0]  # an image's [1, C, H, W], an array's [C, H, W]
        if data.ndim == 3 and data.shape[2] == channels and data.shape[0] != channels:
            data = data.transpose(2, 0, 1)
    return torch.tensor(np.ascontiguousarray(data)).reshape(shape)


def main():
    package, input_path, reference_path = sys.argv[1:4]
    options = sys.argv[4:]
    bgr = "--bgr" in options
    output = options[options.index("--output") + 1] if "--output" in options else None
    model = ct.models.MLModel(package, skip_model_load=True)
    spec = model.get_spec()
    if spec.WhichOneof("Type") == "pipeline":
        spec = spec.pipeline.models[0]  # a detector: the program, then non-maximum suppression
    function = milproto_to_pymil(spec, spec.specificationVersion, model.weights_dir).functions["main"]
    (name, var), = function.inputs.items()
    env = {name: load_input(input_path, var.shape, bgr)}
    compared = None
    rounding = 0
    with torch.no_grad():
        for op in function.operations:
            if op.op_type == "classify":
                compared = env[op.inputs["probabilities"].name]
                continue
            result = run(op, env)
            if op.op_type != "const" and not op.op_type.startswith("constexpr_") and op.outputs[0].dtype == types.fp16:
                result, rounding = result.half(), rounding + 1
            env[op.outputs[0].name] = result
    if output is not None:
        compared = env[output]
    elif compared is None:
        compared = env[function.outputs[0].name]
    ours = compared.float().numpy().reshape(-1).astype(np.float64)
    reference = np.load(reference_path).reshape(-1).astype(np.float64)
    if ours.size != reference.size:
        raise SystemExit(f"run_mlprogram_torch: FAIL {package}: {ours.size} values, the reference has {reference.size}")
    if rounding:
        worst = float(np.max(np.abs(ours - reference)) / max(1.0, float(np.max(np.abs(reference)))))
        bound = rounding * 2.0**-11
    else:
        worst = float(np.max(np.abs(ours - reference) / np.maximum(1, np.abs(reference))))
        bound = 1e-4
    ok = worst <= bound
    precision = f"float16 ({rounding} operations round: bound {bound:.2e})" if rounding else "float32 (bound 1e-4)"
    print(f"{'OK' if ok else 'FAIL'} {package}: {len(function.operations)} operations run on torch {torch.__version__} in {precision}, "
          f"{ours.size} values within {worst:.2e} * max(1, {'max ' if rounding else ''}|ref|) of {reference_path}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
