#!/usr/bin/env python3
"""Self-test of scripts/check_mlmodels.py: proves that it passes a correct
expectation and fails wrong ones and broken models.

Usage: .venv/bin/python scripts/test_check_mlmodels.py
"""

import contextlib
import copy
import io
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_mlmodels  # noqa: E402  (also imports coremltools quietly)

with check_mlmodels.quiet_imports():
    import numpy as np
    from coremltools.models import datatypes
    from coremltools.models.neural_network import NeuralNetworkBuilder
    from coremltools.models.utils import save_spec

LABELS = ["0-2", "4-6"]

EXPECTED = {
    "specificationVersion": 1,
    "kind": "neuralNetworkClassifier",
    "inputs": [{"name": "data", "type": "image", "width": 8, "height": 8, "colorSpace": "BGR"}],
    "outputs": [{"name": "classLabelProbs", "type": "dictionary", "keyType": "string"},
                {"name": "classLabel", "type": "string"}],
    "predictedFeatureName": "classLabel",
    "predictedProbabilitiesName": "classLabelProbs",
    "classLabels": LABELS,
    "preprocessing": [{"featureName": "data",
                       "scaler": {"channelScale": 0.5, "redBias": -1.0, "greenBias": -2.0,
                                  "blueBias": -3.0, "grayBias": 0.0}}],
    "layers": [
        {"name": "conv1", "type": "convolution", "inputs": ["data"], "outputs": ["conv1"],
         "params": {"outputChannels": 4, "kernelChannels": 3, "kernelSize": [3, 3],
                    "stride": [2, 2], "hasBias": True,
                    "valid.paddingAmounts.borderAmounts": [
                        {"startEdgeSize": 0, "endEdgeSize": 0},
                        {"startEdgeSize": 0, "endEdgeSize": 0}]},
         "weightCounts": {"weights": 108, "bias": 4}},
        {"name": "relu1", "type": "activation", "params": {"ReLU": {}}},
        {"name": "pool1", "type": "pooling",
         "params": {"type": "MAX", "kernelSize": [2, 2], "stride": [2, 2],
                    "includeLastPixel.paddingAmounts": [0, 0]}},
        {"name": "fc1", "type": "innerProduct",
         "params": {"inputChannels": 16, "outputChannels": 2, "hasBias": True},
         "weightCounts": {"weights": 32, "bias": 2}},
        {"name": "prob", "type": "softmax", "inputs": ["fc1"], "outputs": ["classLabelProbs"]},
    ],
    "metadata": {"author": "self-test", "userDefined": {"k": "v"}},
    "layerCount": 5,
    "arrayInputShapeMapping": "RANK5_ARRAY_MAPPING",
    "imageInputShapeMapping": 0,
}


def build_classifier(dangling_input=False):
    """A tiny image classifier: conv, relu, pool (includeLastPixel), fc, softmax."""
    rng = np.random.default_rng(0)
    builder = NeuralNetworkBuilder([("data", datatypes.Array(3, 8, 8))],
                                   [("classLabelProbs", None)], mode="classifier")
    builder.add_convolution("conv1", kernel_channels=3, output_channels=4, height=3, width=3,
                            stride_height=2, stride_width=2, border_mode="valid", groups=1,
                            W=rng.standard_normal((3, 3, 3, 4)), b=rng.standard_normal(4),
                            has_bias=True, input_name="data", output_name="conv1")
    builder.add_activation("relu1", "RELU", "conv1", "relu1")
    builder.add_pooling("pool1", height=2, width=2, stride_height=2, stride_width=2,
                        layer_type="MAX", padding_type="INCLUDE_LAST_PIXEL",
                        input_name="relu1", output_name="pool1")
    fc_input = "no_such_blob" if dangling_input else "pool1"
    builder.add_inner_product("fc1", W=rng.standard_normal((2, 16)), b=rng.standard_normal(2),
                              input_channels=16, output_channels=2, has_bias=True,
                              input_name=fc_input, output_name="fc1")
    builder.add_softmax("prob", "fc1", "classLabelProbs")
    builder.set_pre_processing_parameters(image_input_names=["data"], is_bgr=True,
                                          red_bias=-1.0, green_bias=-2.0, blue_bias=-3.0,
                                          image_scale=0.5)
    builder.set_class_labels(LABELS, predicted_feature_name="classLabel")
    builder.spec.description.metadata.author = "self-test"
    builder.spec.description.metadata.userDefined["k"] = "v"
    return builder.spec


def build_detector():
    """A detector pipeline as coremltools' examples build it
    (make_coreml_fixtures.detector_pipeline): a network whose two outputs
    (4 rows) feed a non-maximum suppression."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
    from make_coreml_fixtures import detector_pipeline
    builder = NeuralNetworkBuilder([("data", datatypes.Array(4, 1, 1))],
                                   [("raw_confidence", datatypes.Array(4, 2)), ("raw_coordinates", datatypes.Array(4, 4))])
    builder.add_inner_product("conf", W=np.ones((8, 4)), b=None, input_channels=4, output_channels=8, has_bias=False,
                              input_name="data", output_name="raw_confidence")
    builder.add_inner_product("box", W=np.ones((16, 4)), b=None, input_channels=4, output_channels=16, has_bias=False,
                              input_name="data", output_name="raw_coordinates")
    return detector_pipeline(builder.spec, ["cat", "dog"], iou=0.45, confidence=0.25)


def suppression_of(spec):
    return spec.pipeline.models[1]


# A detector broken one rule of Core ML's pipeline and suppression validators at a time -> the checker's words.
DETECTOR_BREAKS = {
    "float arrays before specification 5": (
        lambda spec: [setattr(f.type.multiArrayType, "dataType", 65568) for f in suppression_of(spec).description.output],
        "dataType: expected DOUBLE, one for all four arrays, got [\"DOUBLE\", \"FLOAT32\"]"),
    "IoU threshold above 1": (lambda spec: setattr(suppression_of(spec).nonMaximumSuppression, "iouThreshold", 1.5),
                              "iouThreshold: expected 0 to 1, got 1.5"),
    "input named by nothing": (lambda spec: setattr(suppression_of(spec).nonMaximumSuppression, "confidenceInputFeatureName", "scores"),
                               "inputs[raw_confidence]: not named by any of the suppression's input feature names"),
    "labels outside the class dimension": (lambda spec: suppression_of(spec).nonMaximumSuppression.stringClassLabels.vector.append("bird"),
                                           "its class dimension does not hold the 3 labels"),
    "input type differs from the network's output": (
        lambda spec: suppression_of(spec).description.input[1].type.multiArrayType.shape.__setitem__(1, 5),
        "inputs[raw_coordinates]: type differs from the pipeline input or earlier output"),
    "an optional input to the suppression": (lambda spec: setattr(suppression_of(spec).description.input[0].type, "isOptional", True),
                                             "inputs[raw_confidence]: optional: Core ML takes optional inputs only in networks and pipelines"),
    "models in the other order": (lambda spec: spec.pipeline.models.reverse(),
                                  'pipeline.models: expected ["neuralNetwork", "nonMaximumSuppression"]'),
}


def layer(expected, name):
    return next(entry for entry in expected["layers"] if entry["name"] == name)


def wrong_stride(expected):
    layer(expected, "conv1")["params"]["stride"] = [4, 4]


def wrong_label(expected):
    expected["classLabels"] = ["0-2", "4-7"]


def wrong_color_space(expected):
    expected["inputs"][0]["colorSpace"] = "RGB"


def wrong_weight_count(expected):
    layer(expected, "fc1")["weightCounts"]["weights"] = 33


def missing_layer(expected):
    expected["layers"].append({"name": "conv2", "type": "convolution"})


def wrong_padding_kind(expected):
    layer(expected, "pool1")["params"]["same"] = {}


def wrong_scaler(expected):
    expected["preprocessing"][0]["scaler"]["blueBias"] = -3.5


def wrong_array_mapping(expected):
    expected["arrayInputShapeMapping"] = "EXACT_ARRAY_MAPPING"


# mutation -> text that the checker's failure line must contain
MUTATIONS = {
    wrong_stride: "layers[conv1].convolution.stride: expected [4, 4], got [2, 2]",
    wrong_label: 'classLabels: expected ["0-2", "4-7"], got ["0-2", "4-6"]',
    wrong_color_space: 'inputs[data].colorSpace: expected "RGB", got "BGR"',
    wrong_weight_count: "layers[fc1].innerProduct.weights: expected 33, got 32",
    missing_layer: "layers[conv2]: expected a layer with this name, got none",
    wrong_padding_kind: "layers[pool1].pooling.same: expected set, got includeLastPixel (oneof PoolingPaddingType)",
    wrong_scaler: "preprocessing[0].scaler.blueBias: expected -3.5, got -3.0",
    wrong_array_mapping: 'arrayInputShapeMapping: expected "EXACT_ARRAY_MAPPING", got "RANK5_ARRAY_MAPPING"',
}


def run_checker(directory):
    """Runs check_mlmodels.main on a directory; returns (exit code, output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = check_mlmodels.main(["check_mlmodels.py", str(directory)])
    return code, out.getvalue()


class CheckMLModelsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.addCleanup(self.tmp.cleanup)

    def write(self, spec, expected=None, name="tiny"):
        save_spec(spec, str(self.dir / f"{name}.mlmodel"))
        if expected is not None:
            (self.dir / f"{name}.expect.json").write_text(json.dumps(expected))

    def test_correct_expectation_passes(self):
        self.write(build_classifier(), EXPECTED)
        code, output = run_checker(self.dir)
        self.assertEqual(code, 0, output)
        self.assertEqual(output, "check_mlmodels: 1 passed, 0 failed\n")

    def test_each_wrong_expectation_is_reported(self):
        for mutate, message in MUTATIONS.items():
            with self.subTest(mutate.__name__):
                expected = copy.deepcopy(EXPECTED)
                mutate(expected)
                self.write(build_classifier(), expected)
                code, output = run_checker(self.dir)
                self.assertEqual(code, 1, output)
                lines = output.splitlines()
                self.assertEqual(len(lines), 2, output)
                self.assertIn(message, lines[0])
                self.assertTrue(lines[0].startswith(str(self.dir / "tiny.mlmodel") + ": "))
                self.assertEqual(lines[-1], "check_mlmodels: 0 passed, 1 failed")

    def test_all_wrong_expectations_at_once_are_each_reported(self):
        expected = copy.deepcopy(EXPECTED)
        for mutate in MUTATIONS:
            mutate(expected)
        self.write(build_classifier(), expected)
        code, output = run_checker(self.dir)
        self.assertEqual(code, 1, output)
        lines = output.splitlines()
        self.assertEqual(len(lines), len(MUTATIONS) + 1, output)
        for message in MUTATIONS.values():
            self.assertIn(message, output)

    def test_command_line_output_is_clean(self):
        self.write(build_classifier(), EXPECTED)
        script = Path(check_mlmodels.__file__)
        run = subprocess.run([sys.executable, str(script), str(self.dir)],
                             capture_output=True, text=True, check=False)
        self.assertEqual((run.returncode, run.stdout, run.stderr),
                         (0, "check_mlmodels: 1 passed, 0 failed\n", ""))
        (self.dir / "tiny.expect.json").write_text(json.dumps({"layerCount": 4}))
        run = subprocess.run([sys.executable, str(script), str(self.dir)],
                             capture_output=True, text=True, check=False)
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stdout, f"{self.dir / 'tiny.mlmodel'}: layerCount: expected 4, got 5\n"
                                     "check_mlmodels: 0 passed, 1 failed\n")

    def test_detector_pipeline_passes_and_each_broken_rule_fails(self):
        self.write(build_detector(), {"kind": "pipeline", "nonMaximumSuppression": {"iouThreshold": 0.45, "pickTop": {"perClass": True}},
                                      "outputs": [{"name": "confidence", "shapeRange": [[0, -1], [2, 2]]}, {"name": "coordinates"}]})
        code, output = run_checker(self.dir)
        self.assertEqual(code, 0, output)
        for name, (breaking, words) in DETECTOR_BREAKS.items():
            with self.subTest(name):
                spec = build_detector()
                breaking(spec)
                self.write(spec, {})
                code, output = run_checker(self.dir)
                self.assertEqual(code, 1, output)
                self.assertIn(words, output)

    def test_dangling_layer_input_fails_structure(self):
        self.write(build_classifier(dangling_input=True))
        code, output = run_checker(self.dir)
        self.assertEqual(code, 1, output)
        self.assertIn('layers[fc1].input: "no_such_blob" is neither a model input', output)
        self.assertTrue(output.endswith("check_mlmodels: 0 passed, 1 failed\n"))

    def test_duplicate_names_and_unproduced_output_fail(self):
        spec = build_classifier()
        spec.neuralNetworkClassifier.layers[1].name = "conv1"
        spec.neuralNetworkClassifier.layers[4].output[0] = "elsewhere"
        spec.neuralNetworkClassifier.labelProbabilityLayerName = "missing"
        self.write(spec)
        code, output = run_checker(self.dir)
        self.assertEqual(code, 1, output)
        self.assertIn('duplicate layer name "conv1"', output)
        self.assertIn("outputs[classLabelProbs]: no layer produces this model output", output)

    def test_undecodable_file_fails(self):
        (self.dir / "junk.mlmodel").write_bytes(b"\xff\xff\xff\xff")
        code, output = run_checker(self.dir)
        self.assertEqual(code, 1, output)
        self.assertIn("junk.mlmodel: decode: not a valid Core ML model", output)

    def test_missing_model_for_expectation_fails(self):
        self.write(build_classifier(), EXPECTED)
        (self.dir / "gone.expect.json").write_text("{}")
        code, output = run_checker(self.dir)
        self.assertEqual(code, 1, output)
        self.assertIn("gone.expect.json: model file missing", output)

    def test_empty_directory_fails(self):
        code, output = run_checker(self.dir)
        self.assertEqual(code, 1)
        self.assertIn("no .mlmodel files", output)


if __name__ == "__main__":
    unittest.main(verbosity=2)
