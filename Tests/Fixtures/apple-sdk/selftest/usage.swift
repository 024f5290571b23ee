// Uses every declaration of the Swift stand-ins once (type-checked only, never
// run), so that a typo in a stand-in shows up as a type error here.
//   swiftc -typecheck -I OUT Tests/Fixtures/apple-sdk/selftest/usage.swift
// The explicit type annotations pin the documented types (optionals etc.).

import CoreML

// The shape of an Xcode-generated input class: it conforms to MLFeatureProvider
// without subclassing NSObject.
class UsageInput: MLFeatureProvider {
    var image: CVPixelBuffer
    var featureNames: Set<String> { return ["image"] }
    func featureValue(for featureName: String) -> MLFeatureValue? {
        if featureName == "image" { return MLFeatureValue(pixelBuffer: image) }
        return nil
    }
    init(image: CVPixelBuffer) { self.image = image }
}

class UsageBatch: MLBatchProvider {
    var count: Int { return 0 }
    func features(at index: Int) -> any MLFeatureProvider { fatalError() }
}

func useFeatureValues(buffer: CVPixelBuffer, cgImage: CGImage, url: URL, array: MLMultiArray) throws {
    let a: MLFeatureValue = MLFeatureValue(pixelBuffer: buffer)
    let b: MLFeatureValue = MLFeatureValue(double: 1.5)
    let c: MLFeatureValue = MLFeatureValue(int64: 3)
    let d: MLFeatureValue = MLFeatureValue(string: "x")
    let e: MLFeatureValue = MLFeatureValue(multiArray: array)
    let f: MLFeatureValue = try MLFeatureValue(dictionary: ["k": NSNumber(value: 1.0)] as [AnyHashable : NSNumber])
    let g: MLFeatureValue = try MLFeatureValue(cgImage: cgImage, pixelsWide: 224, pixelsHigh: 224, pixelFormatType: kCVPixelFormatType_32ARGB, options: nil)
    let h: MLFeatureValue = try MLFeatureValue(imageAt: url, pixelsWide: 224, pixelsHigh: 224, pixelFormatType: kCVPixelFormatType_32BGRA)
    let i: MLFeatureValue = try MLFeatureValue(cgImage: cgImage, pixelsWide: 1, pixelsHigh: 1, pixelFormatType: kCVPixelFormatType_OneComponent8,
                                               options: [MLFeatureValue.ImageOption.cropAndScale: 0, .cropRect: 0])
    let options: [MLFeatureValue.ImageOption : Any] = [MLFeatureValue.ImageOption("k"): 1, MLFeatureValue.ImageOption(rawValue: "j"): 2]
    let raw: String = MLFeatureValue.ImageOption.cropRect.rawValue

    let v1: CVPixelBuffer? = a.imageBufferValue
    let v2: MLMultiArray? = e.multiArrayValue
    let v3: String = d.stringValue
    let v4: Int64 = c.int64Value
    let v5: Double = b.doubleValue
    let v6: [AnyHashable : NSNumber] = f.dictionaryValue
    _ = (g, h, i, options, raw, v1, v2, v3, v4, v5, v6)

    let pixelFormats: [OSType] = [kCVPixelFormatType_32ARGB, kCVPixelFormatType_32BGRA, kCVPixelFormatType_OneComponent8]
    let fourCC: FourCharCode = pixelFormats[0]
    let imageBuffer: CVImageBuffer = buffer
    let cvBuffer: CVBuffer = imageBuffer
    _ = (fourCC, cvBuffer == buffer, Set([cvBuffer]))
}

func useShapedArrays(array: MLMultiArray) throws {
    let types: [MLMultiArrayDataType] = [.double, .float32, .float16, .int32, .float, .float64]
    let m: MLMultiArray = try MLMultiArray(shape: [1, 2], dataType: types[0])

    let s1: MLShapedArray<Float> = MLShapedArray<Float>(m)              // concrete init(_:) (iOS 18)
    let s2 = MLShapedArray<Double>(converting: m)
    let s3 = MLShapedArray<Int32>(scalars: [1, 2], shape: [2])
    let s4 = MLShapedArray<Float>(data: Data(), shape: [0])
    let s5: MLShapedArray<Float> = [1, 2, 3]
    var scalars: [Float] = s1.scalars
    scalars.append(0)
    let slice: MLShapedArraySlice<Float> = s5[0]
    let count: Int = s4.count

    let back: MLMultiArray = MLMultiArray(s1)
    let fv = MLFeatureValue(shapedArray: s3)
    let again: MLShapedArray<Int32>? = fv.shapedArrayValue(of: Int32.self)

    let dataTypes: [MLMultiArrayDataType] = [Float.multiArrayDataType, Double.multiArrayDataType, Int32.multiArrayDataType, Float16.multiArrayDataType]
    _ = (s2, slice, count, back, again, dataTypes)

    // The protocol-extension initializer init(_:) (iOS 15), reached through a generic.
    func viaProtocol<A: MLShapedArrayProtocol>(_ type: A.Type, _ m: MLMultiArray) -> A { return A(m) }
    _ = viaProtocol(MLShapedArray<Float>.self, m)
}

func useProviders(input: UsageInput) throws {
    let dict = try MLDictionaryFeatureProvider(dictionary: ["a": 1.0, "b": MLFeatureValue(double: 2)])
    let value: MLFeatureValue? = dict["a"]
    let names: Set<String> = dict.featureNames
    let byName: MLFeatureValue? = dict.featureValue(for: "a")

    let batch = MLArrayBatchProvider(array: [input, dict])
    let n: Int = batch.count
    let first: any MLFeatureProvider = batch.features(at: 0)
    let asBatch: any MLBatchProvider = batch
    let asProvider: any MLFeatureProvider = dict
    _ = (value, names, byName, n, first, asBatch, asProvider, UsageBatch())
}

func useModel(url: URL, input: UsageInput, batch: any MLBatchProvider) throws {
    let config = MLModelConfiguration()
    let options = MLPredictionOptions()

    let m1: MLModel = try MLModel(contentsOf: url)
    let m2: MLModel = try MLModel(contentsOf: url, configuration: config)
    let description: MLModelDescription = m1.modelDescription
    let usedConfig: MLModelConfiguration = m2.configuration

    let out1: any MLFeatureProvider = try m1.prediction(from: input)
    let out2: any MLFeatureProvider = try m1.prediction(from: input, options: options)
    let outs1: any MLBatchProvider = try m1.predictions(from: batch, options: options)
    let outs2: any MLBatchProvider = try m1.predictions(fromBatch: batch)

    let compiled: URL = try MLModel.compileModel(at: url)

    MLModel.load(contentsOf: url) { (result: Result<MLModel, any Error>) in _ = result }
    MLModel.load(contentsOf: url, configuration: config, completionHandler: { result in _ = try? result.get() })
    MLModel.compileModel(at: url) { (result: Result<URL, any Error>) in _ = result }
    _ = (description, usedConfig, out1, out2, outs1, outs2, compiled)
}

func useModelAsync(url: URL, input: UsageInput) async throws {
    let m1: MLModel = try await MLModel.load(contentsOf: url)
    let m2: MLModel = try await MLModel.load(contentsOf: url, configuration: MLModelConfiguration())
    let out1: any MLFeatureProvider = try await m1.prediction(from: input)
    let out2: any MLFeatureProvider = try await m2.prediction(from: input, options: MLPredictionOptions())
    let compiled: URL = try await MLModel.compileModel(at: url)
    _ = (out1, out2, compiled)
}
