#include "builder/calibration.h"

#include "builder/build_plan.h"
#include "builder/calibration_cache.h"
#include "builder/calibration_histogram.h"
#include "core/logging.h"
#include "core/tensor_view.h"
#include "device_common/element_size.h"

#include <NvInfer.h>

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kiln::builder
{
namespace
{

using Histograms = std::vector<std::pair<std::string, AbsHistogram>>;

//! Collects every floating-point tensor's histogram, in the order the tensors are first seen.
class StatisticsCollector final : public nvinfer1::IDebugListener
{
public:
    void add(char const* name, float const* values, int64_t count)
    {
        auto [it, added] = mIndex.emplace(name, mHistograms.size());
        if (added)
        {
            mHistograms.emplace_back(name, AbsHistogram());
        }
        mHistograms[it->second].second.add(values, count);
    }
    bool processDebugTensor(void const* addr, nvinfer1::TensorLocation /*location*/, nvinfer1::DataType type,
        nvinfer1::Dims const& shape, char const* name, cudaStream_t /*stream*/) noexcept override
    {
        if (type == nvinfer1::DataType::kFLOAT)
        {
            add(name, static_cast<float const*>(addr), volume(Shape(shape.d, shape.d + shape.nbDims)));
        }
        return true;
    }
    Histograms& histograms()
    {
        return mHistograms;
    }

private:
    Histograms mHistograms;
    std::unordered_map<std::string, size_t> mIndex;
};

//! One I/O tensor of the calibration engine: its host memory, and for inputs where the calibrator writes them.
struct CalibrationTensor
{
    std::string name;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    int64_t count{0};
    std::vector<std::byte> host;
    std::unique_ptr<backend::CalibrationBuffer> binding; //!< inputs only
};

//! The configuration of the calibration plan: the CPU reference, FP32, the calibration profile.
std::unique_ptr<BuilderConfig> calibrationConfig(BuilderConfig const& config)
{
    auto calibration = std::make_unique<BuilderConfig>();
    calibration->setBackend(Backend::kCPU);
    calibration->setCpuKernels(CpuKernels::kREFERENCE);
    if (ProfileShapes const* shapes = config.calibrationShapes())
    {
        calibration->addProfileShapes(*shapes);
    }
    else if (!config.profiles().empty())
    {
        calibration->addProfileShapes(config.profiles().front());
    }
    return calibration;
}

//! The calibration engine's I/O tensors at the calibration shapes, their memory made; false after logging why.
bool prepareTensors(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext& context,
    backend::Implementation const& target, std::vector<CalibrationTensor>& tensors)
{
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        CalibrationTensor tensor;
        tensor.name = engine.getIOTensorName(i);
        tensor.type = engine.getTensorDataType(tensor.name.c_str());
        bool const input = engine.getTensorIOMode(tensor.name.c_str()) == nvinfer1::TensorIOMode::kINPUT;
        if (input && engine.isShapeInferenceIO(tensor.name.c_str()))
        {
            logError("INT8 calibration: input \"" + tensor.name
                + "\" is a shape tensor; Kiln calibrates networks whose inputs are all data");
            return false;
        }
        nvinfer1::Dims const dims = input
            ? engine.getProfileShape(tensor.name.c_str(), 0, nvinfer1::OptProfileSelector::kOPT)
            : context.getTensorShape(tensor.name.c_str());
        if (input && !context.setInputShape(tensor.name.c_str(), dims))
        {
            return false;
        }
        tensor.count = volume(Shape(dims.d, dims.d + std::max(dims.nbDims, 0)));
        size_t const bytes = static_cast<size_t>(tensor.count) * elementSize(tensor.type);
        tensor.host.resize(std::max<size_t>(bytes, 1));
        std::string error;
        if (input && !(tensor.binding = target.makeCalibrationBuffer(std::max<size_t>(bytes, 1), error)))
        {
            logError("INT8 calibration: input \"" + tensor.name + "\": " + error);
            return false;
        }
        tensors.push_back(std::move(tensor));
    }
    // Outputs' shapes follow the inputs': ask again now that every input's is set.
    for (CalibrationTensor& tensor : tensors)
    {
        if (!tensor.binding)
        {
            nvinfer1::Dims const dims = context.getTensorShape(tensor.name.c_str());
            tensor.count = volume(Shape(dims.d, dims.d + std::max(dims.nbDims, 0)));
            tensor.host.resize(std::max<size_t>(static_cast<size_t>(tensor.count) * elementSize(tensor.type), 1));
        }
        context.setTensorAddress(tensor.name.c_str(), tensor.host.data());
    }
    return true;
}

//! Copies each input from where the calibrator's binding points (ours, or memory of its own) to the host; false after
//! logging why. The bindings are in the order of the tensors that are inputs.
bool copyBatch(std::vector<CalibrationTensor>& tensors, std::vector<void*>& bindings)
{
    size_t b = 0;
    for (CalibrationTensor& tensor : tensors)
    {
        if (!tensor.binding)
        {
            continue;
        }
        void* const from = bindings[b];
        bindings[b] = tensor.binding->address(); // the next batch is offered our memory again
        ++b;
        std::string error;
        if (from == nullptr)
        {
            logError("INT8 calibration: IInt8Calibrator::getBatch left input \"" + tensor.name + "\" without data");
            return false;
        }
        if (!tensor.binding->copyToHost(from, tensor.host.data(), tensor.host.size(), error))
        {
            logError("INT8 calibration: input \"" + tensor.name + "\": " + error);
            return false;
        }
    }
    return true;
}

//! Adds the FP32 inputs' values (`inputs`) or the FP32 outputs' to the statistics.
void collectIo(std::vector<CalibrationTensor> const& tensors, bool inputs, StatisticsCollector& collector)
{
    for (CalibrationTensor const& tensor : tensors)
    {
        if (tensor.type == nvinfer1::DataType::kFLOAT && (tensor.binding != nullptr) == inputs)
        {
            collector.add(tensor.name.c_str(), reinterpret_cast<float const*>(tensor.host.data()), tensor.count);
        }
    }
}

//! Runs the calibration plan over every batch the calibrator gives; false after logging why.
bool collectStatistics(std::vector<uint8_t> const& plan, nvinfer1::IInt8Calibrator& calibrator,
    backend::Implementation const& target, StatisticsCollector& collector)
{
    std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(globalLogger()));
    std::unique_ptr<nvinfer1::ICudaEngine> engine(
        runtime ? runtime->deserializeCudaEngine(plan.data(), plan.size()) : nullptr);
    std::unique_ptr<nvinfer1::IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
    std::vector<CalibrationTensor> tensors;
    if (!context || !prepareTensors(*engine, *context, target, tensors))
    {
        logError("INT8 calibration: the network's FP32 calibration engine could not be made ready");
        return false;
    }
    context->setDebugListener(&collector);
    context->setUnfusedTensorsDebugState(true);
    std::vector<void*> bindings;
    std::vector<char const*> names;
    for (CalibrationTensor& tensor : tensors)
    {
        if (tensor.binding)
        {
            bindings.push_back(tensor.binding->address());
            names.push_back(tensor.name.c_str());
        }
    }
    int32_t batches = 0;
    while (calibrator.getBatch(bindings.data(), names.data(), static_cast<int32_t>(bindings.size())))
    {
        if (!copyBatch(tensors, bindings))
        {
            return false;
        }
        collectIo(tensors, true, collector);
        if (!context->enqueueV3(nullptr))
        {
            logError("INT8 calibration: the FP32 run of batch " + std::to_string(batches) + " failed");
            return false;
        }
        collectIo(tensors, false, collector);
        ++batches;
    }
    logInfo("INT8 calibration: " + std::to_string(batches) + " batches run");
    if (batches == 0)
    {
        logError("INT8 calibration: the calibrator gave no batch (getBatch returned false at once) and no cache "
                 "for its algorithm; give it calibration data or a calibration cache");
        return false;
    }
    return true;
}

//! The scales of the calibrator's cache where it gives one for its algorithm; none where it gives none (or one for
//! another algorithm, which TensorRT also calibrates again over). False after logging a malformed cache.
bool scalesFromCache(nvinfer1::IInt8Calibrator& calibrator, std::unordered_map<std::string, float>& scales, bool& found)
{
    found = false;
    size_t length = 0;
    void const* data = calibrator.readCalibrationCache(length);
    if (data == nullptr || length == 0)
    {
        return true;
    }
    CalibrationTable table;
    std::string error;
    if (!readCalibrationCache(std::string(static_cast<char const*>(data), length), table, error))
    {
        logError("IInt8Calibrator::readCalibrationCache gave a cache Kiln cannot read: " + error);
        return false;
    }
    char const* const wanted = calibrationAlgorithmName(calibrator.getAlgorithm());
    if (table.algorithm != wanted)
    {
        logWarning("INT8 calibration: the calibration cache was written by " + table.algorithm
            + ", the calibrator asks for " + wanted + "; calibrating again");
        return true;
    }
    for (auto const& [name, scale] : table.scales)
    {
        scales[name] = scale;
    }
    found = true;
    logInfo("INT8 calibration: " + std::to_string(table.scales.size()) + " scales read from the calibration cache (TRT-"
        + table.version + "-" + table.algorithm + ")");
    return true;
}

//! The histograms, from a legacy calibrator's histogram cache or by running the network; false after logging why.
bool histogramsOf(network::Network& network, BuilderConfig const& config, backend::Implementation const& target,
    nvinfer1::IInt8Calibrator& calibrator, Histograms& histograms)
{
    auto* legacy = dynamic_cast<nvinfer1::IInt8LegacyCalibrator*>(&calibrator);
    size_t length = 0;
    void const* cached = legacy != nullptr ? legacy->readHistogramCache(length) : nullptr;
    if (cached != nullptr && length > 0)
    {
        std::string error;
        if (!readHistogramCache(std::string(static_cast<char const*>(cached), length), histograms, error))
        {
            logError("IInt8LegacyCalibrator::readHistogramCache gave a cache Kiln cannot read: " + error);
            return false;
        }
        return true;
    }
    std::unique_ptr<BuilderConfig> const calibrationBuild = calibrationConfig(config);
    std::unique_ptr<nvinfer1::IHostMemory> const plan = buildPlan(network, *calibrationBuild, nullptr, true);
    if (!plan)
    {
        logError("INT8 calibration: the network's FP32 calibration plan could not be built");
        return false;
    }
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    StatisticsCollector collector;
    if (!collectStatistics(std::vector<uint8_t>(bytes, bytes + plan->size()), calibrator, target, collector))
    {
        return false;
    }
    histograms = std::move(collector.histograms());
    if (legacy != nullptr)
    {
        std::string const text = writeHistogramCache(histograms);
        legacy->writeHistogramCache(text.data(), text.size());
    }
    return true;
}

} // namespace

bool calibrate(network::Network& network, BuilderConfig const& config, backend::Implementation const& target,
    std::unordered_map<std::string, float>& scales)
{
    nvinfer1::IInt8Calibrator& calibrator = *config.getInt8Calibrator();
    bool cached = false;
    if (!scalesFromCache(calibrator, scales, cached))
    {
        return false;
    }
    if (cached)
    {
        return true;
    }
    // TensorRT 10 takes the batch from the calibration profile's shapes; the calibrator is asked as it asks.
    int32_t const batchSize = calibrator.getBatchSize();
    logVerbose("INT8 calibration: the calibrator's batch size is " + std::to_string(batchSize));
    Histograms histograms;
    if (!histogramsOf(network, config, target, calibrator, histograms))
    {
        return false;
    }
    nvinfer1::CalibrationAlgoType const algorithm = calibrator.getAlgorithm();
    auto const* legacy = dynamic_cast<nvinfer1::IInt8LegacyCalibrator const*>(&calibrator);
    double const quantile = legacy != nullptr ? legacy->getQuantile() : 1.0;
    double const cutoff = legacy != nullptr ? legacy->getRegressionCutoff() : 1.0;
    std::vector<std::pair<std::string, float>> ordered;
    for (auto const& [name, histogram] : histograms)
    {
        float const scale = calibratedRange(algorithm, histogram, quantile, cutoff) / 127.0F;
        ordered.emplace_back(name, scale);
        scales[name] = scale;
    }
    std::string const cache = writeCalibrationCache(algorithm, ordered);
    calibrator.writeCalibrationCache(cache.data(), cache.size());
    logInfo("INT8 calibration: " + std::to_string(ordered.size()) + " tensors calibrated with "
        + calibrationAlgorithmName(algorithm));
    return true;
}

} // namespace kiln::builder
