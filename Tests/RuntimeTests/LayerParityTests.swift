import CoreMLBackend
import ModelFormat
import XCTest

/// One test per fixture in Tests/Fixtures/runtime (see its README for the
/// reference each was computed with).
final class LayerParityTests: XCTestCase {
    func testActElu() throws { try checkParity("act_elu") }
    func testActLeakyRelu() throws { try checkParity("act_leaky_relu") }
    func testActLinear() throws { try checkParity("act_linear") }
    func testActParametricSoftplus() throws { try checkParity("act_parametric_softplus") }
    func testActPrelu() throws { try checkParity("act_prelu") }
    func testActRelu() throws { try checkParity("act_relu") }
    func testActScaledTanh() throws { try checkParity("act_scaled_tanh") }
    func testActSigmoid() throws { try checkParity("act_sigmoid") }
    func testActSigmoidHard() throws { try checkParity("act_sigmoid_hard") }
    func testActSoftplus() throws { try checkParity("act_softplus") }
    func testActSoftsign() throws { try checkParity("act_softsign") }
    func testActTanh() throws { try checkParity("act_tanh") }
    func testActThresholdedRelu() throws { try checkParity("act_thresholded_relu") }
    func testAdd() throws { try checkParity("add") }
    func testAddBroadcast() throws { try checkParity("add_broadcast") }
    func testAddScalar() throws { try checkParity("add_scalar") }
    func testAverage() throws { try checkParity("average") }
    func testBatchnorm() throws { try checkParity("batchnorm") }
    func testBias() throws { try checkParity("bias") }
    func testChainCaffe() throws { try checkParity("chain_caffe") }
    func testClassifier() throws { try checkParity("classifier") }
    func testClip() throws { try checkParity("clip") }
    /// The clip as the writer expresses it below specification 4 (relu or
    /// threshold, linear -1, threshold, linear -1) computes numpy's clip too.
    func testClipLoweredToSpecificationOne() throws {
        try checkParity("clip") { model in
            let lowered = SpecificationVersion.lowered(model, for: 1)
            XCTAssertEqual(lowered.nodes.map(\.operation.kindName), ["unary", "activation", "unary", "activation"])
            return lowered
        }
    }
    func testConcat() throws { try checkParity("concat") }
    func testConv1x1() throws { try checkParity("conv_1x1") }
    func testConvDepthwise() throws { try checkParity("conv_depthwise") }
    func testConvGroupsDilation() throws { try checkParity("conv_groups_dilation") }
    func testConvSame() throws { try checkParity("conv_same") }
    func testConvSameTopLeftHeavy() throws { try checkParity("conv_same_top_left_heavy") }
    func testConvValidPadsStride() throws { try checkParity("conv_valid_pads_stride") }
    func testCrop() throws { try checkParity("crop") }
    func testCropOffset() throws { try checkParity("crop_offset") }
    func testDeconv() throws { try checkParity("deconv") }
    func testDeconvGroups() throws { try checkParity("deconv_groups") }
    func testDeconvSame() throws { try checkParity("deconv_same") }
    func testFlattenChannelFirst() throws { try checkParity("flatten_channel_first") }
    func testFlattenChannelLast() throws { try checkParity("flatten_channel_last") }
    func testImageMeanBgr() throws { try checkParity("image_mean_bgr") }
    func testImageScalerBgr() throws { try checkParity("image_scaler_bgr") }
    func testImageScalerRgb() throws { try checkParity("image_scaler_rgb") }
    func testInnerProduct() throws { try checkParity("inner_product") }
    func testL2normalize() throws { try checkParity("l2normalize") }
    func testLrn() throws { try checkParity("lrn") }
    func testLrnK2() throws { try checkParity("lrn_k2") }
    func testMax() throws { try checkParity("max") }
    func testMin() throws { try checkParity("min") }
    func testMultiply() throws { try checkParity("multiply") }
    func testMultiplyBroadcast() throws { try checkParity("multiply_broadcast") }
    func testMultiplyScalar() throws { try checkParity("multiply_scalar") }
    func testPadConstant() throws { try checkParity("pad_constant") }
    func testPadReflection() throws { try checkParity("pad_reflection") }
    func testPadReplication() throws { try checkParity("pad_replication") }
    func testPermute() throws { try checkParity("permute") }
    func testPoolAvgValidPads() throws { try checkParity("pool_avg_valid_pads") }
    func testPoolGlobal() throws { try checkParity("pool_global") }
    func testPoolIncludeLastPixelAvg() throws { try checkParity("pool_include_last_pixel_avg") }
    func testPoolIncludeLastPixelMax() throws { try checkParity("pool_include_last_pixel_max") }
    func testPoolMaxValidPads() throws { try checkParity("pool_max_valid_pads") }
    func testPoolSame() throws { try checkParity("pool_same") }
    func testReduceArgmax() throws { try checkParity("reduce_argmax") }
    func testReduceAvg() throws { try checkParity("reduce_avg") }
    func testReduceL1() throws { try checkParity("reduce_l1") }
    func testReduceL2() throws { try checkParity("reduce_l2") }
    func testReduceLogsum() throws { try checkParity("reduce_logsum") }
    func testReduceMax() throws { try checkParity("reduce_max") }
    func testRankNAttention() throws { try checkParity("rank_n_attention") }
    func testRankNLayout() throws { try checkParity("rank_n_layout") }
    /// coremltools' layerNormalization layers read back as LayerNorm nodes
    /// (gamma ones and beta zeros as absent); the kernel computes numpy's values.
    func testRankNLayerNorm() throws {
        try checkParity("rank_n_layer_norm") { model in
            let norms = model.nodes.compactMap { $0.operation.definition as? LayerNorm }
            XCTAssertEqual(norms.map(\.normalizedShape), [[3, 4], [4]])
            XCTAssertEqual(norms.map(\.epsilon), [1e-5, 0.5])
            XCTAssertEqual(norms.map { [$0.gamma != nil, $0.beta != nil] }, [[true, true], [false, false]])
            return model
        }
    }
    func testReduceMin() throws { try checkParity("reduce_min") }
    func testReduceProd() throws { try checkParity("reduce_prod") }
    func testReduceSum() throws { try checkParity("reduce_sum") }
    func testReduceSumsquare() throws { try checkParity("reduce_sumsquare") }
    func testReshapeChannelFirst() throws { try checkParity("reshape_channel_first") }
    func testReshapeChannelLast() throws { try checkParity("reshape_channel_last") }
    func testScale() throws { try checkParity("scale") }
    func testSliceChannel() throws { try checkParity("slice_channel") }
    func testSliceHeight() throws { try checkParity("slice_height") }
    func testSliceWidth() throws { try checkParity("slice_width") }
    func testSoftmax() throws { try checkParity("softmax") }
    func testSplit() throws { try checkParity("split") }
    func testUnaryAbs() throws { try checkParity("unary_abs") }
    func testUnaryExp() throws { try checkParity("unary_exp") }
    func testUnaryInverse() throws { try checkParity("unary_inverse") }
    func testUnaryLog() throws { try checkParity("unary_log") }
    func testUnaryPower() throws { try checkParity("unary_power") }
    func testUnaryRsqrt() throws { try checkParity("unary_rsqrt") }
    func testUnarySqrt() throws { try checkParity("unary_sqrt") }
    func testUnaryThreshold() throws { try checkParity("unary_threshold") }
    func testUpsampleBilinear() throws { try checkParity("upsample_bilinear") }
    func testUpsampleBilinearAlignCorners() throws { try checkParity("upsample_bilinear_align_corners") }
    func testUpsampleBilinearHalfPixel() throws { try checkParity("upsample_bilinear_half_pixel") }
    func testUpsampleNearest() throws { try checkParity("upsample_nearest") }

    /// A fixture without a test method would go unchecked.
    func testEveryFixtureHasATest() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let folders = try FileManager.default.contentsOfDirectory(atPath: runtimeFixtures.path).filter { !$0.hasSuffix(".md") }
        for folder in folders {
            XCTAssertTrue(source.contains("checkParity(\"\(folder)\")"), "no test for fixture \(folder)")
        }
    }
}
