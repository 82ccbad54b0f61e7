// One instance of a model (an entry of its instance_group): an execution context of the model's engine and the
// memory it runs on. The server calls execute with the requests its scheduler gathered (dynamic batching gives
// several at once); requests of the same shapes run as one batch along the first dimension and are split back.
#pragma once

#include "model_state.h"
#include "pending_request.h"
#include "response_sender.h"
#include "staged_output.h"
#include "tensor_staging.h"

#include <NvInferRuntime.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::triton
{

class ModelInstance
{
public:
    ModelInstance(ModelState& model, TRITONBACKEND_ModelInstance* instance);
    ~ModelInstance();
    ModelInstance(ModelInstance const&) = delete;
    ModelInstance& operator=(ModelInstance const&) = delete;

    //! Runs the requests and hands each, with its outputs or with the error that concerns it alone, to the instance's
    //! ResponseSender, which answers and releases it.
    void execute(TRITONBACKEND_Request** requests, uint32_t count);

private:
    using Batch = std::vector<PendingRequest*>;

    std::vector<Batch> formBatches(std::vector<PendingRequest>& pending) const;
    void runBatch(Batch const& batch, uint64_t execStart);
    void bindInputs(Batch const& batch, int64_t rows);
    void bindOutputs();
    //! The shapes of the data-dependent outputs, as the run told them.
    void readDataDependentShapes();
    //! Each request's response with its outputs (or the error that stopped them), once the copies are over.
    std::vector<ResponseSender::Answer> respond(Batch const& batch, int64_t rows);
    //! Adds the outputs request asks for to response: its rows from firstRow of a batch of rows.
    TRITONSERVER_Error* addOutputs(
        TRITONBACKEND_Response* response, PendingRequest const& request, int64_t firstRow, int64_t rows);
    void stageDataDependentOutputs();
    void startCudaGraphs(bool onGpu);
    //! Grows every staging slot to its size at profile 0's largest shapes, so that the addresses the graphs hold
    //! stay the same while batch sizes vary.
    void reserveLargestSlots();

    ModelState& mModel;
    TRITONBACKEND_ModelInstance* mInstance;
    std::string mName;
    std::shared_ptr<nvinfer1::ICudaEngine> mEngine;
    std::unique_ptr<TensorStaging> mStaging; // declared before the context, which reads its memory, to outlive it
    //! For each engine output, its allocator where its shape depends on the data (else null); they outlive the
    //! context, which calls them.
    std::vector<std::unique_ptr<StagedOutput>> mStagedOutputs;
    std::unique_ptr<nvinfer1::IExecutionContext> mContext;
    EngineIo mIo;                                    //!< every engine input and output: each has a staging slot
    std::vector<size_t> mServedOutputSlot;           //!< for each ServedModel::outputs entry, its staging slot
    std::vector<std::vector<int64_t>> mOutputShapes; //!< of the batch being run, in the engine's output order
    //! Last, so that it is stopped first: every response it holds goes out before the instance's memory does.
    std::unique_ptr<ResponseSender> mSender;
};

} // namespace kiln::triton
