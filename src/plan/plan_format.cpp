#include "plan/plan_format.h"

#include "core/data_type.h"
#include "core/tensor_view.h"
#include "network/layers/layer_kinds.h"
#include "network/plugin_layer.h"
#include "serial/byte_io.h"
#include "plan/plan_validation.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <algorithm>
#include <cstring>

namespace kiln::plan
{
namespace
{

using serial::ByteReader;
using serial::ByteWriter;
using serial::FieldReader;
using serial::FieldWriter;
using serial::readEnum;
using serial::writeEnum;

// Bounds on counts read from a plan, so a corrupted count cannot ask for gigabytes
// before the reader notices the data is not there.
constexpr uint32_t kMaxCount = 1U << 24;

// The fewest bytes one element of each list takes in a plan. A count is checked against the bytes left divided by
// these before a vector is sized by it, so memory follows the plan's size and not a count read from it.
constexpr size_t kIndexBytes = sizeof(int32_t);
constexpr size_t kEnumBytes = sizeof(int32_t);
constexpr size_t kStringBytes = sizeof(uint64_t);
constexpr size_t kManifestEntryBytes = 5 * kStringBytes;
constexpr size_t kExprBytes = 1 + kEnumBytes + sizeof(int64_t) + 3 * sizeof(int32_t);
constexpr size_t kSymbolBytes = 2 * sizeof(int32_t) + 1;
// Name, type, format, dimension count, values flag, I/O mode, offset, size, three view fields, debug mark.
constexpr size_t kTensorBytes
    = kStringBytes + 2 * kEnumBytes + sizeof(uint32_t) + 1 + kEnumBytes + 2 * sizeof(int64_t) + 3 * sizeof(int32_t) + 1;
// Type, name, input and output counts, parameters, precision, I/O type and format counts, backend choice, guards.
constexpr size_t kLayerBytes = kEnumBytes + kStringBytes + 2 * sizeof(uint32_t) + sizeof(uint64_t) + 1 + kEnumBytes
    + 2 * sizeof(uint32_t) + sizeof(uint64_t) + sizeof(uint32_t);
constexpr size_t kGuardBytes = sizeof(int32_t) + 1;
constexpr size_t kProfileBytes = sizeof(uint32_t);
constexpr size_t kProfileInputBytes = 3 * sizeof(int32_t);
constexpr size_t kRefitBytes = 2 * kStringBytes + sizeof(int32_t) + kEnumBytes;

//! A count of elements of at least `elementBytes` bytes each, which the bytes left can hold.
bool readCount(ByteReader& reader, uint32_t& count, char const* what, size_t elementBytes)
{
    if (!reader.read(count, what))
    {
        return false;
    }
    if (count > kMaxCount || count > reader.remaining() / elementBytes)
    {
        return reader.fail(std::string(what) + ": count " + std::to_string(count) + " is impossible here");
    }
    return true;
}

void writeIndices(ByteWriter& writer, std::vector<int32_t> const& indices)
{
    writer.write(static_cast<uint32_t>(indices.size()));
    for (int32_t i : indices)
    {
        writer.write(i);
    }
}

bool readIndices(ByteReader& reader, std::vector<int32_t>& indices, char const* what)
{
    uint32_t count = 0;
    if (!readCount(reader, count, what, kIndexBytes))
    {
        return false;
    }
    indices.resize(count);
    for (auto& i : indices)
    {
        if (!reader.read(i, what))
        {
            return false;
        }
    }
    return true;
}

//! Layer `l`'s parameters, from the `size` bytes at `data` that its kind wrote; false with the reason in `reader`.
bool readLayerParams(LayerRecord& l, uint8_t const* data, size_t size, ByteReader& reader)
{
    bool const isPlugin = l.type == nvinfer1::LayerType::kPLUGIN_V2 || l.type == nvinfer1::LayerType::kPLUGIN_V3;
    std::unique_ptr<network::LayerParams> params = isPlugin ? std::make_unique<network::PluginParams>()
                                                            : network::makeLayerParams(l.type);
    if (params == nullptr)
    {
        return reader.fail("layer \"" + l.name + "\" is of kind " + std::to_string(static_cast<int32_t>(l.type))
            + ", which this build of Kiln cannot run");
    }
    ByteReader paramsReader(data, size);
    if (!params->read(paramsReader) || paramsReader.remaining() != 0)
    {
        return reader.fail("the parameters of layer \"" + l.name + "\" "
            + (paramsReader.ok() ? "have unread bytes" : "cannot be read: " + paramsReader.error()));
    }
    l.params = std::move(params);
    return true;
}

void writeManifest(ByteWriter& w, std::vector<PluginRequirement> const& manifest)
{
    w.write(static_cast<uint32_t>(manifest.size()));
    for (auto const& p : manifest)
    {
        w.writeString(p.name);
        w.writeString(p.version);
        w.writeString(p.pluginNamespace);
        w.writeString(p.interfaceKind);
        w.writeString(p.library);
    }
}

void writeExprs(ByteWriter& w, std::vector<ExprNode> const& exprs)
{
    w.write(static_cast<uint32_t>(exprs.size()));
    for (auto const& e : exprs)
    {
        w.write(e.kind);
        writeEnum(w, e.op);
        w.write(e.value);
        w.write(e.symbol);
        w.write(e.first);
        w.write(e.second);
    }
}

void writeSymbols(ByteWriter& w, std::vector<SymbolRecord> const& symbols)
{
    w.write(static_cast<uint32_t>(symbols.size()));
    for (auto const& s : symbols)
    {
        w.write(s.tensor);
        w.write(s.axis);
        w.write(static_cast<uint8_t>(s.kind));
    }
}

void writeTensors(ByteWriter& w, std::vector<TensorRecord> const& tensors)
{
    w.write(static_cast<uint32_t>(tensors.size()));
    for (auto const& t : tensors)
    {
        w.writeString(t.name);
        writeEnum(w, t.type);
        writeEnum(w, t.format);
        writeIndices(w, t.dims);
        w.write(static_cast<uint8_t>(t.values.has_value()));
        if (t.values)
        {
            writeIndices(w, *t.values);
        }
        writeEnum(w, t.ioMode);
        w.write(t.arenaOffset);
        w.write(t.maxBytes);
        w.write(t.viewOf);
        w.write(t.viewOffset);
        w.write(t.viewCheck);
        w.write(static_cast<uint8_t>(t.debug));
    }
}

void writeLayer(ByteWriter& w, LayerRecord const& l)
{
    writeEnum(w, l.type);
    w.writeString(l.name);
    writeIndices(w, l.inputs);
    writeIndices(w, l.outputs);
    ByteWriter params;
    l.params->write(params);
    w.writeBytes(params.bytes().data(), params.bytes().size());
    w.write(static_cast<uint8_t>(l.precision.has_value()));
    writeEnum(w, l.precision.value_or(nvinfer1::DataType::kFLOAT));
    w.write(static_cast<uint32_t>(l.ioTypes.size()));
    for (nvinfer1::DataType type : l.ioTypes)
    {
        writeEnum(w, type);
    }
    w.write(static_cast<uint32_t>(l.ioFormats.size()));
    for (nvinfer1::TensorFormat format : l.ioFormats)
    {
        writeEnum(w, format);
    }
    Epilogue::fields(l.epilogue, FieldWriter(w));
    w.writeBytes(l.backendChoice.data(), l.backendChoice.size());
    w.write(static_cast<uint32_t>(l.guards.size()));
    for (Guard const& guard : l.guards)
    {
        w.write(guard.condition);
        w.write(static_cast<uint8_t>(guard.value));
    }
}

void writeProfiles(ByteWriter& w, std::vector<ProfileRecord> const& profiles)
{
    w.write(static_cast<uint32_t>(profiles.size()));
    for (auto const& p : profiles)
    {
        w.write(static_cast<uint32_t>(p.inputs.size()));
        for (auto const& bounds : p.inputs)
        {
            for (auto const& dims : bounds)
            {
                w.writeDims(dims);
            }
        }
    }
}

void writeRefittable(ByteWriter& w, std::vector<RefitRecord> const& records)
{
    w.write(static_cast<uint32_t>(records.size()));
    for (auto const& r : records)
    {
        w.writeString(r.name);
        w.writeString(r.layerName);
        w.write(r.layer);
        writeEnum(w, r.role);
    }
}

void writePayload(ByteWriter& w, PlanModel const& m)
{
    w.write(static_cast<int32_t>(m.backend == Backend::kCUDA ? Backend::kCUDA : Backend::kCPU));
    w.writeString(m.networkName);
    writeManifest(w, m.manifest);
    writeExprs(w, m.exprs);
    writeSymbols(w, m.symbols);
    writeTensors(w, m.tensors);
    writeIndices(w, m.ioTensors);
    w.write(static_cast<uint32_t>(m.layers.size()));
    for (auto const& l : m.layers)
    {
        writeLayer(w, l);
    }
    writeProfiles(w, m.profiles);
    writeRefittable(w, m.refittable);
    w.write(m.arenaBytes);
    w.write(m.workspaceBytes);
}

bool readManifest(ByteReader& r, std::vector<PluginRequirement>& manifest)
{
    uint32_t count = 0;
    if (!readCount(r, count, "plugin manifest", kManifestEntryBytes))
    {
        return false;
    }
    manifest.resize(count);
    for (auto& p : manifest)
    {
        if (!r.readString(p.name, "plugin name") || !r.readString(p.version, "plugin version")
            || !r.readString(p.pluginNamespace, "plugin namespace")
            || !r.readString(p.interfaceKind, "plugin interface") || !r.readString(p.library, "plugin library"))
        {
            return false;
        }
    }
    return true;
}

bool readExprs(ByteReader& r, std::vector<ExprNode>& exprs)
{
    uint32_t count = 0;
    if (!readCount(r, count, "shape expressions", kExprBytes))
    {
        return false;
    }
    exprs.resize(count);
    for (auto& e : exprs)
    {
        if (!r.read(e.kind, "expression kind") || !readEnum(r, e.op, "expression operation")
            || !r.read(e.value, "expression value") || !r.read(e.symbol, "expression symbol")
            || !r.read(e.first, "expression operand") || !r.read(e.second, "expression operand"))
        {
            return false;
        }
    }
    return true;
}

bool readSymbols(ByteReader& r, std::vector<SymbolRecord>& symbols)
{
    uint32_t count = 0;
    if (!readCount(r, count, "symbols", kSymbolBytes))
    {
        return false;
    }
    symbols.resize(count);
    for (auto& s : symbols)
    {
        uint8_t kind = 0;
        if (!r.read(s.tensor, "symbol tensor") || !r.read(s.axis, "symbol axis") || !r.read(kind, "symbol kind"))
        {
            return false;
        }
        if (kind > static_cast<uint8_t>(SymbolRecord::Kind::kSIZE))
        {
            return r.fail("unknown symbol kind " + std::to_string(kind));
        }
        s.kind = static_cast<SymbolRecord::Kind>(kind);
    }
    return true;
}

bool readTensor(ByteReader& r, TensorRecord& t)
{
    uint8_t hasValues = 0;
    if (!r.readString(t.name, "tensor name") || !readEnum(r, t.type, "tensor type")
        || !readEnum(r, t.format, "tensor format") || !readIndices(r, t.dims, "tensor dimensions")
        || !r.read(hasValues, "tensor values flag"))
    {
        return false;
    }
    if (hasValues != 0)
    {
        t.values.emplace();
        if (!readIndices(r, *t.values, "tensor values"))
        {
            return false;
        }
    }
    uint8_t debug = 0;
    if (!readEnum(r, t.ioMode, "tensor I/O mode") || !r.read(t.arenaOffset, "tensor offset")
        || !r.read(t.maxBytes, "tensor size") || !r.read(t.viewOf, "viewed tensor")
        || !r.read(t.viewOffset, "view offset") || !r.read(t.viewCheck, "view bounds")
        || !r.read(debug, "tensor debug mark"))
    {
        return false;
    }
    if (debug > static_cast<uint8_t>(DebugMark::kUNFUSED))
    {
        return r.fail("tensor \"" + t.name + "\": debug mark " + std::to_string(debug) + " is out of range");
    }
    t.debug = static_cast<DebugMark>(debug);
    return true;
}

bool readTensors(ByteReader& r, std::vector<TensorRecord>& tensors)
{
    uint32_t count = 0;
    if (!readCount(r, count, "tensors", kTensorBytes))
    {
        return false;
    }
    tensors.resize(count);
    for (auto& t : tensors)
    {
        if (!readTensor(r, t))
        {
            return false;
        }
    }
    return true;
}

//! The layer's precision, if it has one, and the types of its inputs and outputs.
bool readLayerTypes(ByteReader& r, LayerRecord& l)
{
    uint8_t hasPrecision = 0;
    nvinfer1::DataType precision{};
    uint32_t nbIoTypes = 0;
    if (!r.read(hasPrecision, "layer precision flag") || !readEnum(r, precision, "layer precision")
        || !readCount(r, nbIoTypes, "layer I/O types", kEnumBytes))
    {
        return false;
    }
    if (hasPrecision)
    {
        l.precision = precision;
    }
    l.ioTypes.resize(nbIoTypes);
    for (auto& type : l.ioTypes)
    {
        if (!readEnum(r, type, "layer I/O type"))
        {
            return false;
        }
    }
    return true;
}

bool readLayerFormats(ByteReader& r, LayerRecord& l)
{
    uint32_t nbIoFormats = 0;
    if (!readCount(r, nbIoFormats, "layer I/O formats", kEnumBytes))
    {
        return false;
    }
    l.ioFormats.resize(nbIoFormats);
    for (auto& format : l.ioFormats)
    {
        if (!readEnum(r, format, "layer I/O format"))
        {
            return false;
        }
    }
    return true;
}

bool readGuards(ByteReader& r, LayerRecord& l)
{
    uint32_t count = 0;
    if (!readCount(r, count, "layer guards", kGuardBytes))
    {
        return false;
    }
    l.guards.resize(count);
    for (Guard& guard : l.guards)
    {
        uint8_t value = 0;
        if (!r.read(guard.condition, "guard condition") || !r.read(value, "guard value"))
        {
            return false;
        }
        if (value > 1)
        {
            return r.fail("layer \"" + l.name + "\" has a guard value of " + std::to_string(value));
        }
        guard.value = value != 0;
    }
    return true;
}

//! TensorRT's layer types, and Kiln's own that only plans hold (network::kPointwiseLayerType, kAttentionLayerType,
//! kFusedNormalizationLayerType, kQuantizedConvolutionLayerType, kQuantizedMatrixMultiplyLayerType,
//! kRecurrentSequenceLayerType, kRecurrentSequencePairLayerType). Kiln's own kinds are additions within a format
//! version: they change no other layer's bytes, and a Kiln without one refuses a plan holding it here, naming its layer
//! type.
bool readLayerType(ByteReader& r, nvinfer1::LayerType& type)
{
    int32_t raw = 0;
    if (!r.read(raw, "layer type"))
    {
        return false;
    }
    for (nvinfer1::LayerType const own :
        {network::kPointwiseLayerType, network::kAttentionLayerType, network::kFusedNormalizationLayerType,
            network::kQuantizedConvolutionLayerType, network::kQuantizedMatrixMultiplyLayerType,
            network::kRecurrentSequenceLayerType, network::kRecurrentSequencePairLayerType})
    {
        if (raw == static_cast<int32_t>(own))
        {
            type = own;
            return true;
        }
    }
    ByteReader tensorRtType(&raw, sizeof(raw));
    return readEnum(tensorRtType, type, "layer type") || r.fail(tensorRtType.error());
}

bool readLayer(ByteReader& r, LayerRecord& l)
{
    uint8_t const* params = nullptr;
    size_t paramsSize = 0;
    if (!readLayerType(r, l.type) || !r.readString(l.name, "layer name") || !readIndices(r, l.inputs, "layer inputs")
        || !readIndices(r, l.outputs, "layer outputs") || !r.readBytes(params, paramsSize, "layer parameters"))
    {
        return false;
    }
    if (!readLayerParams(l, params, paramsSize, r) || !readLayerTypes(r, l) || !readLayerFormats(r, l))
    {
        return false;
    }
    uint8_t const* choice = nullptr;
    size_t choiceSize = 0;
    Epilogue::fields(l.epilogue, FieldReader(r));
    if (!r.readBytes(choice, choiceSize, "layer backend choice"))
    {
        return false;
    }
    l.backendChoice.assign(choice, choice + choiceSize);
    return readGuards(r, l);
}

bool readLayers(ByteReader& r, std::vector<LayerRecord>& layers)
{
    uint32_t count = 0;
    if (!readCount(r, count, "layers", kLayerBytes))
    {
        return false;
    }
    layers.resize(count);
    for (auto& l : layers)
    {
        if (!readLayer(r, l))
        {
            return false;
        }
    }
    return true;
}

bool readProfiles(ByteReader& r, std::vector<ProfileRecord>& profiles)
{
    uint32_t count = 0;
    if (!readCount(r, count, "optimization profiles", kProfileBytes))
    {
        return false;
    }
    profiles.resize(count);
    for (auto& p : profiles)
    {
        uint32_t inputs = 0;
        if (!readCount(r, inputs, "profile inputs", kProfileInputBytes))
        {
            return false;
        }
        p.inputs.resize(inputs);
        for (auto& bounds : p.inputs)
        {
            for (auto& dims : bounds)
            {
                if (!r.readDims(dims, "profile dimensions"))
                {
                    return false;
                }
            }
        }
    }
    return true;
}

bool readRefittable(ByteReader& r, std::vector<RefitRecord>& records)
{
    uint32_t count = 0;
    if (!readCount(r, count, "refittable weights", kRefitBytes))
    {
        return false;
    }
    records.resize(count);
    for (auto& record : records)
    {
        if (!r.readString(record.name, "refittable weights' name")
            || !r.readString(record.layerName, "refittable weights' layer name")
            || !r.read(record.layer, "refittable weights' layer") || !readEnum(r, record.role, "weights role"))
        {
            return false;
        }
    }
    return true;
}

bool readPayload(ByteReader& r, PlanModel& m)
{
    int32_t backend = 0;
    if (!r.read(backend, "backend") || !r.readString(m.networkName, "network name"))
    {
        return false;
    }
    if (backend != static_cast<int32_t>(Backend::kCPU) && backend != static_cast<int32_t>(Backend::kCUDA))
    {
        return r.fail("unknown backend " + std::to_string(backend));
    }
    m.backend = static_cast<Backend>(backend);
    return readManifest(r, m.manifest) && readExprs(r, m.exprs) && readSymbols(r, m.symbols)
        && readTensors(r, m.tensors) && readIndices(r, m.ioTensors, "I/O tensors") && readLayers(r, m.layers)
        && readProfiles(r, m.profiles) && readRefittable(r, m.refittable)
        && r.read(m.arenaBytes, "activation memory size") && r.read(m.workspaceBytes, "workspace size");
}

} // namespace

uint64_t planChecksum(uint8_t const* header, uint8_t const* payload, size_t payloadSize)
{
    // Covers the header's first 24 bytes too, so no byte of the file can change unnoticed.
    return fnv1a64(payload, payloadSize, fnv1a64(header, kPlanHeaderSize - sizeof(uint64_t)));
}

uint64_t fnv1a64(uint8_t const* data, size_t size, uint64_t hash)
{
    for (size_t i = 0; i < size; ++i)
    {
        hash ^= data[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

std::vector<uint8_t> writePlan(PlanModel const& model)
{
    ByteWriter payload;
    writePayload(payload, model);
    std::vector<uint8_t> const& body = payload.bytes();

    ByteWriter file;
    for (char c : kPlanMagic)
    {
        file.write(c);
    }
    file.write(kPlanFormatVersion);
    file.write(static_cast<uint32_t>(KILN_VERSION));
    file.write(static_cast<uint64_t>(body.size()));
    file.write(planChecksum(file.bytes().data(), body.data(), body.size()));
    std::vector<uint8_t> bytes = file.take();
    bytes.insert(bytes.end(), body.begin(), body.end());
    return bytes;
}

bool readPlan(void const* data, size_t size, PlanModel& model, std::string& error)
{
    if (size < kPlanHeaderSize)
    {
        error = "the plan is truncated: " + std::to_string(size) + " bytes, less than the "
            + std::to_string(kPlanHeaderSize) + "-byte header";
        return false;
    }
    if (data == nullptr)
    {
        error = "the plan data is null";
        return false;
    }
    auto const* bytes = static_cast<uint8_t const*>(data);
    if (std::memcmp(bytes, kPlanMagic, sizeof(kPlanMagic)) != 0)
    {
        bool const tensorRT = size >= 4 && std::memcmp(bytes, "ftrt", 4) == 0;
        error = tensorRT
            ? "this is a TensorRT plan, not a Kiln plan; rebuild it with Kiln from the network or ONNX model"
            : "this is not a Kiln plan (the file does not start with \"KILNPLAN\")";
        return false;
    }
    ByteReader header(bytes + sizeof(kPlanMagic), kPlanHeaderSize - sizeof(kPlanMagic));
    uint32_t version = 0;
    uint32_t writer = 0;
    uint64_t payloadSize = 0;
    uint64_t checksum = 0;
    header.read(version, "format version");
    header.read(writer, "Kiln version");
    header.read(payloadSize, "payload size");
    header.read(checksum, "checksum");
    if (version != kPlanFormatVersion)
    {
        error = "the plan has format version " + std::to_string(version) + " (written by Kiln "
            + std::to_string(writer / 10000) + "." + std::to_string(writer / 100 % 100) + "."
            + std::to_string(writer % 100) + "); this Kiln (" KILN_VERSION_STRING ") reads format version "
            + std::to_string(kPlanFormatVersion) + ": rebuild the plan";
        return false;
    }
    if (payloadSize != size - kPlanHeaderSize)
    {
        error = "the plan is "
            + std::string(payloadSize > size - kPlanHeaderSize ? "truncated" : "followed by extra data")
            + ": its header announces " + std::to_string(payloadSize) + " payload bytes, the file has "
            + std::to_string(size - kPlanHeaderSize);
        return false;
    }
    uint8_t const* payload = bytes + kPlanHeaderSize;
    if (planChecksum(bytes, payload, payloadSize) != checksum)
    {
        error = "the plan is corrupted: its checksum does not match its contents";
        return false;
    }
    ByteReader reader(payload, payloadSize);
    model = PlanModel{};
    if (!readPayload(reader, model))
    {
        error = "the plan is malformed: " + reader.error();
        return false;
    }
    if (reader.remaining() != 0)
    {
        error = "the plan is malformed: " + std::to_string(reader.remaining()) + " unread bytes at its end";
        return false;
    }
    return validatePlan(model, error);
}

} // namespace kiln::plan
