// Calibrators called as TensorRT's builder calls them: readCalibrationCache first, else getBatch until it returns
// false, then writeCalibrationCache with TensorRT's text; the calibrated scales then quantize the network implicitly.
// The network, X [2, 3] times a constant W [3, 2], and its batches hold values whose products and sums are exact, so
// the ranges are known by hand: max |X| = 3 over both batches, max |Y| = 5.25 (X2's first row times W's second
// column). Expected outputs come from numpy (float32): clip(rint(X / s), -128, 127) * s times W quantized per column.
#include "expect_close.h"
#include "layer_harness.h"

#include <NvInferVersion.h>

#include <functional>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

std::vector<std::vector<float>> const kBatches{
    {0.5F, -1.25F, 2.0F, 1.0F, 0.25F, -0.75F},
    {-3.0F, 0.5F, 1.0F, 0.25F, 1.5F, -0.5F},
};
std::vector<float> const kW{0.5F, -1.0F, 1.0F, 0.5F, -0.5F, 2.0F};

//! Gives kBatches one after another into host bindings, and keeps the caches it is given.
template <typename Base>
class TestCalibrator : public Base
{
public:
    int32_t getBatchSize() const noexcept override
    {
        return 2;
    }
    bool getBatch(void* bindings[], char const* names[], int32_t nbBindings) noexcept override
    {
        ++batchCalls;
        if (nbBindings != 1 || std::string(names[0]) != "x" || next >= kBatches.size())
        {
            return false;
        }
        if (ownMemory)
        {
            // As TensorRT's samples do: the binding points at the calibrator's own memory.
            mine = kBatches[next];
            bindings[0] = mine.data();
        }
        else
        {
            std::copy(kBatches[next].begin(), kBatches[next].end(), static_cast<float*>(bindings[0]));
        }
        ++next;
        return true;
    }
    void const* readCalibrationCache(std::size_t& length) noexcept override
    {
        length = cacheIn.size();
        return cacheIn.empty() ? nullptr : cacheIn.data();
    }
    void writeCalibrationCache(void const* ptr, std::size_t length) noexcept override
    {
        cacheOut.assign(static_cast<char const*>(ptr), length);
    }

    std::string cacheIn;
    std::string cacheOut;
    int32_t batchCalls{0};
    size_t next{0};
    bool ownMemory{false};
    std::vector<float> mine;
};

class LegacyCalibrator final : public TestCalibrator<IInt8LegacyCalibrator>
{
public:
    double getQuantile() const noexcept override
    {
        return 1.0;
    }
    double getRegressionCutoff() const noexcept override
    {
        return 1.0;
    }
    void const* readHistogramCache(std::size_t& length) noexcept override
    {
        length = histogramsIn.size();
        return histogramsIn.empty() ? nullptr : histogramsIn.data();
    }
    void writeHistogramCache(void const* ptr, std::size_t length) noexcept override
    {
        histogramsOut.assign(static_cast<char const*>(ptr), length);
    }

    std::string histogramsIn;
    std::string histogramsOut;
};

//! What a test changes of the network or configuration before the build (may be empty).
using Setup = std::function<void(LayerHarness&, ITensor& x)>;

//! Builds X * W with kINT8 and `calibrator`, and runs it on the first batch; empty after a failed build.
std::vector<float> buildAndRun(IInt8Calibrator& calibrator, std::string* errors = nullptr, Setup const& setup = {})
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {setup ? -1 : 2, 3}});
    ITensor* w = h.network->addConstant(Dims{2, {3, 2}}, floatWeights(kW))->getOutput(0);
    h.output(h.network->addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE), "y");
    h.config->setFlag(BuilderFlag::kINT8);
    h.config->setInt8Calibrator(&calibrator);
    EXPECT_EQ(h.config->getInt8Calibrator(), &calibrator);
    if (setup)
    {
        setup(h, *x);
    }
    if (errors != nullptr)
    {
        kiln::setBackend(*h.config, kiln::Backend::kCPU);
        std::unique_ptr<IHostMemory> plan(h.builder->buildSerializedNetwork(*h.network, *h.config));
        EXPECT_EQ(plan, nullptr);
        *errors = h.logger.errors();
        return {};
    }
    std::vector<float> y(4, 0.0F);
    if (h.build())
    {
        EXPECT_TRUE(h.context->setInputShape("x", Dims{2, {2, 3}}));
        h.run({{"x", kBatches[0].data()}}, {{"y", y.data()}});
    }
    return y;
}

std::vector<float> const kQuantizedY{-2.0138261F, 2.8848658F, 1.1407403F, -2.3808048F};

TEST(Calibrator, MinMaxCalibratesWritesTheCacheAndQuantizes)
{
    TestCalibrator<IInt8MinMaxCalibrator> calibrator;
    expectClose(buildAndRun(calibrator), kQuantizedY, 1e-6F);
    EXPECT_EQ(calibrator.batchCalls, 3) << "two batches, then false";
    // 3 / 127 is 0x3cc18306 and 5.25 / 127 is 0x3d2952a5 (Python: struct.pack('>f', numpy.float32(3) / 127).hex()).
    std::string const header = "TRT-" + std::to_string(NV_TENSORRT_VERSION) + "-MinMaxCalibration\n";
    EXPECT_EQ(calibrator.cacheOut.rfind(header, 0), 0U) << calibrator.cacheOut;
    EXPECT_NE(calibrator.cacheOut.find("\nx: 3cc18306\n"), std::string::npos) << calibrator.cacheOut;
    EXPECT_NE(calibrator.cacheOut.find("\ny: 3d2952a5\n"), std::string::npos) << calibrator.cacheOut;
}

TEST(Calibrator, BindingsMayPointAtTheCalibratorsOwnMemory)
{
    TestCalibrator<IInt8MinMaxCalibrator> calibrator;
    calibrator.ownMemory = true;
    expectClose(buildAndRun(calibrator), kQuantizedY, 1e-6F);
    EXPECT_NE(calibrator.cacheOut.find("\nx: 3cc18306\n"), std::string::npos) << calibrator.cacheOut;
}

//! Runtime batch extents: profile 0 runs 1 to 4 rows (kOPT 4); the calibration profile gives the 2 rows of each batch.
void dynamicBatch(LayerHarness& h, ITensor& /*x*/)
{
    h.setProfile("x", Dims{2, {1, 3}}, Dims{2, {4, 3}}, Dims{2, {4, 3}});
    IOptimizationProfile* calibration = h.builder->createOptimizationProfile();
    for (auto select : {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
    {
        calibration->setDimensions("x", select, Dims{2, {2, 3}});
    }
    EXPECT_TRUE(h.config->setCalibrationProfile(calibration));
    EXPECT_EQ(h.config->getCalibrationProfile(), calibration);
}

TEST(Calibrator, CalibrationProfileGivesTheBatchShapes)
{
    TestCalibrator<IInt8MinMaxCalibrator> calibrator;
    expectClose(buildAndRun(calibrator, nullptr, dynamicBatch), kQuantizedY, 1e-6F);
    EXPECT_NE(calibrator.cacheOut.find("\nx: 3cc18306\n"), std::string::npos) << calibrator.cacheOut;
}

TEST(Calibrator, SetDynamicRangeOverridesTheCalibratedRange)
{
    // x's range [-1, 1]: scale 1 / 127, so 1.25 and 2 saturate. numpy: q(X1, 1 / 127) times W quantized per column.
    TestCalibrator<IInt8MinMaxCalibrator> calibrator;
    auto const ranged = [](LayerHarness& h, ITensor& x) {
        dynamicBatch(h, x);
        EXPECT_TRUE(x.setDynamicRange(-1.0F, 1.0F));
    };
    expectClose(buildAndRun(calibrator, nullptr, ranged), {-1.2578585F, 0.98418999F, 1.1328663F, -2.3769608F}, 1e-6F);
    EXPECT_NE(calibrator.cacheOut.find("\nx: 3cc18306\n"), std::string::npos) << "the cache keeps the calibrated scale";
}

TEST(Calibrator, ACacheForItsAlgorithmReplacesTheBatches)
{
    TestCalibrator<IInt8MinMaxCalibrator> calibrator;
    // As TensorRT 10.3 would write it: another version, read all the same.
    calibrator.cacheIn = "TRT-100300-MinMaxCalibration\nx: 3cc18306\ny: 3d2952a5\n";
    expectClose(buildAndRun(calibrator), kQuantizedY, 1e-6F);
    EXPECT_EQ(calibrator.batchCalls, 0);
    EXPECT_TRUE(calibrator.cacheOut.empty());
}

TEST(Calibrator, ACacheOfAnotherAlgorithmIsCalibratedAgain)
{
    TestCalibrator<IInt8MinMaxCalibrator> calibrator;
    calibrator.cacheIn = "TRT-100300-EntropyCalibration2\nx: 3c010204\n";
    expectClose(buildAndRun(calibrator), kQuantizedY, 1e-6F);
    EXPECT_EQ(calibrator.batchCalls, 3);
}

TEST(Calibrator, MalformedCacheFailsTheBuildNamingTheLine)
{
    TestCalibrator<IInt8EntropyCalibrator2> calibrator;
    calibrator.cacheIn = "TRT-100300-EntropyCalibration2\nx 3c010204\n";
    std::string errors;
    buildAndRun(calibrator, &errors);
    EXPECT_NE(errors.find("calibration cache line 2: \"x 3c010204\""), std::string::npos) << errors;
}

TEST(Calibrator, NoBatchAndNoCacheFailsTheBuild)
{
    TestCalibrator<IInt8EntropyCalibrator2> calibrator;
    calibrator.next = kBatches.size();
    std::string errors;
    buildAndRun(calibrator, &errors);
    EXPECT_NE(errors.find("the calibrator gave no batch"), std::string::npos) << errors;
}

TEST(Calibrator, EntropyCalibratorsWriteTheirAlgorithm)
{
    TestCalibrator<IInt8EntropyCalibrator2> entropy2;
    EXPECT_EQ(buildAndRun(entropy2).size(), 4U);
    EXPECT_NE(entropy2.cacheOut.find("-EntropyCalibration2\n"), std::string::npos) << entropy2.cacheOut;
    EXPECT_NE(entropy2.cacheOut.find("\nx: "), std::string::npos) << entropy2.cacheOut;
    TestCalibrator<IInt8EntropyCalibrator> entropy;
    EXPECT_EQ(buildAndRun(entropy).size(), 4U);
    EXPECT_NE(entropy.cacheOut.find("-EntropyCalibration\n"), std::string::npos) << entropy.cacheOut;
}

TEST(Calibrator, LegacyKeepsItsHistogramsAndReadsThemBack)
{
    // Quantile 1 and cutoff 1: the largest magnitudes, as MinMax.
    LegacyCalibrator first;
    expectClose(buildAndRun(first), kQuantizedY, 1e-6F);
    EXPECT_NE(first.cacheOut.find("-LegacyCalibration\n"), std::string::npos) << first.cacheOut;
    EXPECT_NE(first.cacheOut.find("\nx: 3cc18306\n"), std::string::npos) << first.cacheOut;
    ASSERT_EQ(first.histogramsOut.rfind("KILN-HISTOGRAMS-1\nx: ", 0), 0U) << first.histogramsOut.substr(0, 100);
    LegacyCalibrator second;
    second.histogramsIn = first.histogramsOut;
    expectClose(buildAndRun(second), kQuantizedY, 1e-6F);
    EXPECT_EQ(second.batchCalls, 0);
    EXPECT_EQ(second.cacheOut, first.cacheOut);
}

} // namespace
