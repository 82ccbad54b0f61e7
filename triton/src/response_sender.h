// Sends an instance's responses and releases their requests on a thread of its own. Triton's frontends turn each
// response into their wire format inside TRITONBACKEND_ResponseSend, on the calling thread (gRPC takes about 20 us a
// response): sending a batch's responses here lets the instance start its next batch meanwhile, so that with dynamic
// batching the GPU does not wait for the responses of the batch before.
#pragma once

#include "kiln_triton/triton_api.h"

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::triton
{

class ResponseSender
{
public:
    //! What one request gets: its response with its outputs, or its error (owned: the sender deletes it). A null
    //! response is made here, to carry the error.
    struct Answer
    {
        TRITONBACKEND_Request* request{nullptr};
        TRITONBACKEND_Response* response{nullptr};
        TRITONSERVER_Error* error{nullptr};
    };
    //! A batch's answers with Triton's statistics times (ns): execution start, compute start and end. rows: the
    //! batch's rows for its statistics, 0 for answers sent outside a batch run.
    struct Batch
    {
        std::vector<Answer> answers;
        std::array<uint64_t, 3> times{};
        uint64_t rows{0};
    };

    //! Now, on the clock of Batch::times: the steady clock, in nanoseconds.
    static uint64_t now();

    explicit ResponseSender(TRITONBACKEND_ModelInstance* instance);
    //! Sends every batch posted before, then stops.
    ~ResponseSender();
    ResponseSender(ResponseSender const&) = delete;
    ResponseSender& operator=(ResponseSender const&) = delete;

    //! Queues batch: each answer is sent, each request's statistics reported and the request released, then the
    //! batch's statistics reported. A batch of one answer is sent at once, on the calling thread.
    void post(Batch batch);

private:
    void sendPosted();
    void send(Batch& batch) const;

    TRITONBACKEND_ModelInstance* mInstance;
    std::mutex mMutex;
    std::condition_variable mPosted;
    std::deque<Batch> mQueue; //!< guarded by mMutex
    bool mStopping{false};    //!< guarded by mMutex
    std::thread mThread;      //!< last: starts once the members it reads exist
};

} // namespace kiln::triton
