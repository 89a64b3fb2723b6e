/* libcublasLt for the open toolkit on ROCm stacks without hipBLASLt: cuBLASLt's C API, each
   matmul one hipBLAS GEMM (through the toolkit's cuBLAS names) and the epilogue in the kernels
   below. Built at image build by the toolkit's own nvcc for the image's targets.

   What is not provided returns CUBLAS_STATUS_NOT_SUPPORTED (and logs why, at level 1):
   matrix orders other than column-major, per-row alpha vectors, FP8 scaling and amax,
   matrices of different batch counts, C and D of different types. */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <moatbridge/cublas_status_text.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#define LT_API extern "C" __attribute__((visibility("default")))

struct cublasLtContext {
    cublasHandle_t blas;
};

namespace {

constexpr uint32_t kMagic = 0x4d42544cu;  // marks a descriptor made by Init/Create

struct MatmulDesc {
    int32_t compute, scale, pointer_mode, transa, transb, transc, fill;
    uint32_t epilogue;
    const void* bias;
    int64_t bias_batch_stride;
    void* aux;
    int64_t aux_ld, aux_batch_stride, alpha_vector_batch_stride;
    int32_t sm_count_target;
    const void *a_scale, *b_scale, *c_scale, *d_scale;
    void* amax_d;
    int32_t aux_type;
    void* aux_scale;
    void* aux_amax;
    int8_t fast_accum;
    int32_t bias_type;  // -1: the type of D
    int32_t chunks_rows, chunks_cols;
    int32_t* in_counters;
    int32_t* out_counters;
    int32_t a_scale_mode, b_scale_mode, c_scale_mode, d_scale_mode, aux_scale_mode;
    void* d_out_scale;
    int32_t d_out_scale_mode;
    void* emulation;
    uint32_t magic;
};

struct Layout {
    uint32_t type;
    int32_t order;
    uint64_t rows, cols;
    int64_t ld;
    int32_t batch_count;
    int64_t batch_stride, plane_offset;
    int32_t batch_mode;
    uint32_t magic;
};

struct Preference {
    uint32_t search_mode;
    uint64_t max_workspace;
    uint32_t reduction_mask, align_a, align_b, align_c, align_d;
    float max_waves;
    uint64_t impl_mask;
    uint32_t magic;
};

struct TransformDesc {
    int32_t scale, pointer_mode, transa, transb;
    uint32_t magic;
};

struct EmulationDesc {
    int32_t strategy, special_values, mantissa_control, max_mantissa_bits, mantissa_bit_offset;
    int32_t* mantissa_bit_count;
    uint32_t magic;
};

struct AlgoConfig {
    int32_t id;
    uint32_t tile, splitk, reduction, swizzling, custom, stages;
    uint16_t inner_shape, cluster_shape;
};

static_assert(sizeof(MatmulDesc) <= sizeof(cublasLtMatmulDescOpaque_t), "matmul descriptor too big");
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout too big");
static_assert(sizeof(Preference) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "preference too big");
static_assert(sizeof(TransformDesc) <= sizeof(cublasLtMatrixTransformDescOpaque_t), "transform too big");
static_assert(sizeof(EmulationDesc) <= 64, "emulation descriptor too big");
static_assert(sizeof(AlgoConfig) <= sizeof(cublasLtMatmulAlgo_t), "algo too big");

/* --- logging (CUBLASLT_LOG_LEVEL, CUBLASLT_LOG_MASK, CUBLASLT_LOG_FILE, or the calls) --- */
struct Logger {
    std::mutex lock;
    int mask = 0;
    bool disabled = false;
    FILE* file = stderr;
    cublasLtLoggerCallback_t callback = nullptr;
};

Logger& logger() {
    static Logger* state = [] {
        Logger* made = new Logger();
        if (const char* level = std::getenv("CUBLASLT_LOG_LEVEL")) made->mask = (1 << std::atoi(level)) - 1;
        if (const char* mask = std::getenv("CUBLASLT_LOG_MASK")) made->mask = std::atoi(mask);
        if (const char* path = std::getenv("CUBLASLT_LOG_FILE")) {
            if (FILE* opened = std::fopen(path, "a")) made->file = opened;
        }
        return made;
    }();
    return *state;
}

void log_message(int level, const char* function, const char* message) {
    Logger& state = logger();
    std::lock_guard<std::mutex> hold(state.lock);
    if (state.disabled || !(state.mask & (1 << (level - 1)))) return;
    if (state.callback) {
        state.callback(level, function, message);
    } else if (state.file) {
        std::fprintf(state.file, "[cublasLt][%d][%s] %s\n", level, function, message);
        std::fflush(state.file);
    }
}

cublasStatus_t fail(cublasStatus_t status, const char* function, const char* why) {
    log_message(1, function, why);
    return status;
}

/* --- attributes: a table of (offset, size) per attribute, one copy routine --- */
struct Field {
    size_t offset, size;
};
constexpr Field kNone = {0, 0};

cublasStatus_t set_field(void* object, Field field, const void* buf, size_t size, const char* function) {
    if (field.size == 0) return fail(CUBLAS_STATUS_INVALID_VALUE, function, "unknown attribute");
    if (!buf || size != field.size) return fail(CUBLAS_STATUS_INVALID_VALUE, function, "attribute size mismatch");
    std::memcpy(static_cast<char*>(object) + field.offset, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t get_field(const void* object, Field field, void* buf, size_t size, size_t* written,
                         const char* function) {
    if (field.size == 0) return fail(CUBLAS_STATUS_INVALID_VALUE, function, "unknown attribute");
    if (size == 0 && written) {
        *written = field.size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size != field.size) return fail(CUBLAS_STATUS_INVALID_VALUE, function, "attribute size mismatch");
    std::memcpy(buf, static_cast<const char*>(object) + field.offset, size);
    if (written) *written = field.size;
    return CUBLAS_STATUS_SUCCESS;
}

#define LT_FIELD(type, member) Field{offsetof(type, member), sizeof(static_cast<type*>(nullptr)->member)}

Field matmul_field(int attr) {
    switch (attr) {
        case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: return LT_FIELD(MatmulDesc, compute);
        case CUBLASLT_MATMUL_DESC_SCALE_TYPE: return LT_FIELD(MatmulDesc, scale);
        case CUBLASLT_MATMUL_DESC_POINTER_MODE: return LT_FIELD(MatmulDesc, pointer_mode);
        case CUBLASLT_MATMUL_DESC_TRANSA: return LT_FIELD(MatmulDesc, transa);
        case CUBLASLT_MATMUL_DESC_TRANSB: return LT_FIELD(MatmulDesc, transb);
        case CUBLASLT_MATMUL_DESC_TRANSC: return LT_FIELD(MatmulDesc, transc);
        case CUBLASLT_MATMUL_DESC_FILL_MODE: return LT_FIELD(MatmulDesc, fill);
        case CUBLASLT_MATMUL_DESC_EPILOGUE: return LT_FIELD(MatmulDesc, epilogue);
        case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return LT_FIELD(MatmulDesc, bias);
        case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: return LT_FIELD(MatmulDesc, bias_batch_stride);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: return LT_FIELD(MatmulDesc, aux);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: return LT_FIELD(MatmulDesc, aux_ld);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: return LT_FIELD(MatmulDesc, aux_batch_stride);
        case CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE: return LT_FIELD(MatmulDesc, alpha_vector_batch_stride);
        case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: return LT_FIELD(MatmulDesc, sm_count_target);
        case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER: return LT_FIELD(MatmulDesc, a_scale);
        case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER: return LT_FIELD(MatmulDesc, b_scale);
        case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER: return LT_FIELD(MatmulDesc, c_scale);
        case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER: return LT_FIELD(MatmulDesc, d_scale);
        case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER: return LT_FIELD(MatmulDesc, amax_d);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: return LT_FIELD(MatmulDesc, aux_type);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER: return LT_FIELD(MatmulDesc, aux_scale);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER: return LT_FIELD(MatmulDesc, aux_amax);
        case CUBLASLT_MATMUL_DESC_FAST_ACCUM: return LT_FIELD(MatmulDesc, fast_accum);
        case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return LT_FIELD(MatmulDesc, bias_type);
#if CUDART_VERSION >= 13000
        case CUBLASLT_MATMUL_DESC_A_SCALE_MODE: return LT_FIELD(MatmulDesc, a_scale_mode);
        case CUBLASLT_MATMUL_DESC_B_SCALE_MODE: return LT_FIELD(MatmulDesc, b_scale_mode);
        case CUBLASLT_MATMUL_DESC_C_SCALE_MODE: return LT_FIELD(MatmulDesc, c_scale_mode);
        case CUBLASLT_MATMUL_DESC_D_SCALE_MODE: return LT_FIELD(MatmulDesc, d_scale_mode);
        case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE: return LT_FIELD(MatmulDesc, aux_scale_mode);
        case CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER: return LT_FIELD(MatmulDesc, d_out_scale);
        case CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE: return LT_FIELD(MatmulDesc, d_out_scale_mode);
        case CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR: return LT_FIELD(MatmulDesc, emulation);
#else
        case CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS: return LT_FIELD(MatmulDesc, chunks_rows);
        case CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_COLS: return LT_FIELD(MatmulDesc, chunks_cols);
        case CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER: return LT_FIELD(MatmulDesc, in_counters);
        case CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER: return LT_FIELD(MatmulDesc, out_counters);
#endif
        default: return kNone;
    }
}

Field layout_field(int attr) {
    switch (attr) {
        case CUBLASLT_MATRIX_LAYOUT_TYPE: return LT_FIELD(Layout, type);
        case CUBLASLT_MATRIX_LAYOUT_ORDER: return LT_FIELD(Layout, order);
        case CUBLASLT_MATRIX_LAYOUT_ROWS: return LT_FIELD(Layout, rows);
        case CUBLASLT_MATRIX_LAYOUT_COLS: return LT_FIELD(Layout, cols);
        case CUBLASLT_MATRIX_LAYOUT_LD: return LT_FIELD(Layout, ld);
        case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return LT_FIELD(Layout, batch_count);
        case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return LT_FIELD(Layout, batch_stride);
        case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: return LT_FIELD(Layout, plane_offset);
#if CUDART_VERSION >= 13000
        case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: return LT_FIELD(Layout, batch_mode);
#endif
        default: return kNone;
    }
}

Field preference_field(int attr) {
    switch (attr) {
        case CUBLASLT_MATMUL_PREF_SEARCH_MODE: return LT_FIELD(Preference, search_mode);
        case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: return LT_FIELD(Preference, max_workspace);
        case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: return LT_FIELD(Preference, reduction_mask);
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: return LT_FIELD(Preference, align_a);
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES: return LT_FIELD(Preference, align_b);
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: return LT_FIELD(Preference, align_c);
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES: return LT_FIELD(Preference, align_d);
        case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT: return LT_FIELD(Preference, max_waves);
        case CUBLASLT_MATMUL_PREF_IMPL_MASK: return LT_FIELD(Preference, impl_mask);
        default: return kNone;
    }
}

Field transform_field(int attr) {
    switch (attr) {
        case CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE: return LT_FIELD(TransformDesc, scale);
        case CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE: return LT_FIELD(TransformDesc, pointer_mode);
        case CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA: return LT_FIELD(TransformDesc, transa);
        case CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB: return LT_FIELD(TransformDesc, transb);
        default: return kNone;
    }
}

Field config_field(int attr) {
    switch (attr) {
        case CUBLASLT_ALGO_CONFIG_ID: return LT_FIELD(AlgoConfig, id);
        case CUBLASLT_ALGO_CONFIG_TILE_ID: return LT_FIELD(AlgoConfig, tile);
        case CUBLASLT_ALGO_CONFIG_SPLITK_NUM: return LT_FIELD(AlgoConfig, splitk);
        case CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME: return LT_FIELD(AlgoConfig, reduction);
        case CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING: return LT_FIELD(AlgoConfig, swizzling);
        case CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION: return LT_FIELD(AlgoConfig, custom);
        case CUBLASLT_ALGO_CONFIG_STAGES_ID: return LT_FIELD(AlgoConfig, stages);
        case CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID: return LT_FIELD(AlgoConfig, inner_shape);
        case CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID: return LT_FIELD(AlgoConfig, cluster_shape);
        default: return kNone;
    }
}

/* --- epilogue ---------------------------------------------------------------------------- */
enum : uint32_t {
    kRelu = 2, kBias = 4, kReluGrad = 8, kBiasGrad = 16, kGelu = 32, kGeluGrad = 64, kAux = 128,
    kBiasGradA = 256, kBiasGradB = 512,
};
constexpr uint32_t kKnownEpilogues[] = {
    CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU_AUX, CUBLASLT_EPILOGUE_BIAS,
    CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, CUBLASLT_EPILOGUE_DRELU,
    CUBLASLT_EPILOGUE_DRELU_BGRAD, CUBLASLT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_GELU_BIAS,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_DGELU, CUBLASLT_EPILOGUE_DGELU_BGRAD,
    CUBLASLT_EPILOGUE_BGRADA, CUBLASLT_EPILOGUE_BGRADB,
};

bool elementwise_type(int type) {
    return type == CUDA_R_32F || type == CUDA_R_64F || type == CUDA_R_16F || type == CUDA_R_16BF;
}

size_t element_size(int type) {
    switch (type) {
        case CUDA_R_64F: case CUDA_C_32F: return 8;
        case CUDA_R_32F: case CUDA_R_32I: case CUDA_C_16F: case CUDA_C_16BF: return 4;
        case CUDA_R_16F: case CUDA_R_16BF: return 2;
        case CUDA_C_64F: return 16;
        case CUDA_R_8I: case CUDA_R_8U: return 1;
        default: return 0;
    }
}

template <class Acc>
__device__ Acc load(const void* base, int type, int64_t index) {
    switch (type) {
        case CUDA_R_64F: return static_cast<Acc>(static_cast<const double*>(base)[index]);
        case CUDA_R_16F: return static_cast<Acc>(__half2float(static_cast<const __half*>(base)[index]));
        case CUDA_R_16BF: return static_cast<Acc>(__bfloat162float(static_cast<const __nv_bfloat16*>(base)[index]));
        default: return static_cast<Acc>(static_cast<const float*>(base)[index]);
    }
}

template <class Acc>
__device__ void store(void* base, int type, int64_t index, Acc value) {
    switch (type) {
        case CUDA_R_64F: static_cast<double*>(base)[index] = static_cast<double>(value); break;
        case CUDA_R_16F: static_cast<__half*>(base)[index] = __float2half(static_cast<float>(value)); break;
        case CUDA_R_16BF:
            static_cast<__nv_bfloat16*>(base)[index] = __float2bfloat16(static_cast<float>(value));
            break;
        default: static_cast<float*>(base)[index] = static_cast<float>(value); break;
    }
}

/* GELU as cuBLASLt computes it: the tanh approximation. */
template <class Acc>
__device__ Acc gelu(Acc x) {
    const Acc c = static_cast<Acc>(0.7978845608028654), k = static_cast<Acc>(0.044715);
    return static_cast<Acc>(0.5) * x * (static_cast<Acc>(1) + tanh(c * (x + k * x * x * x)));
}

template <class Acc>
__device__ Acc gelu_derivative(Acc x) {
    const Acc c = static_cast<Acc>(0.7978845608028654), k = static_cast<Acc>(0.044715);
    const Acc t = tanh(c * (x + k * x * x * x));
    return static_cast<Acc>(0.5) * (static_cast<Acc>(1) + t) +
           static_cast<Acc>(0.5) * x * (static_cast<Acc>(1) - t * t) * c * (static_cast<Acc>(1) + 3 * k * x * x);
}

struct EpilogueArgs {
    void* d;
    int d_type;
    int64_t ldd, d_stride;
    int64_t rows, cols;
    uint32_t epilogue;
    const void* bias;
    int bias_type;
    int64_t bias_stride;
    void* aux;
    int aux_type;
    int64_t aux_ld, aux_stride;
};

/* One thread per 8 consecutive rows of one column, so a ReLU mask byte has a single writer. */
template <class Acc>
__global__ void epilogue_kernel(EpilogueArgs a) {
    const int64_t groups = (a.rows + 7) / 8;
    const int64_t group = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    const int64_t col = blockIdx.y;
    const int64_t batch = blockIdx.z;
    if (group >= groups) return;
    const bool relu = a.epilogue & kRelu, gelu_on = a.epilogue & kGelu;
    const bool relu_grad = a.epilogue & kReluGrad, gelu_grad = a.epilogue & kGeluGrad;
    const bool forward_aux = (a.epilogue & kAux) && !relu_grad && !gelu_grad;
    const bool bias_on = (a.epilogue & kBias) && !relu_grad && !gelu_grad;
    unsigned char mask = 0;
    const unsigned char* mask_in = static_cast<const unsigned char*>(a.aux);
    const int64_t aux_base = batch * a.aux_stride + col * a.aux_ld;
    for (int bit = 0; bit < 8; ++bit) {
        const int64_t row = group * 8 + bit;
        if (row >= a.rows) break;
        const int64_t at = batch * a.d_stride + col * a.ldd + row;
        Acc x = load<Acc>(a.d, a.d_type, at);
        if (bias_on) x += load<Acc>(a.bias, a.bias_type, batch * a.bias_stride + row);
        if (relu) {
            if (x > static_cast<Acc>(0)) mask |= static_cast<unsigned char>(1u << bit);
            x = x > static_cast<Acc>(0) ? x : static_cast<Acc>(0);
        } else if (gelu_on) {
            if (forward_aux) store<Acc>(a.aux, a.aux_type, aux_base + row, x);
            x = gelu(x);
        } else if (relu_grad) {
            const unsigned char byte = mask_in[(aux_base + group * 8) / 8];
            if (!(byte & (1u << bit))) x = static_cast<Acc>(0);
        } else if (gelu_grad) {
            x *= gelu_derivative(load<Acc>(a.aux, a.aux_type, aux_base + row));
        }
        store<Acc>(a.d, a.d_type, at, x);
    }
    if (relu && forward_aux) static_cast<unsigned char*>(a.aux)[(aux_base + group * 8) / 8] = mask;
}

/* out[o] = sum over r < count of x[base(o) + r * step]: bias gradients of D, op(A) or op(B). */
struct ReduceArgs {
    const void* x;
    int x_type;
    int64_t outputs, count, output_step, element_step, x_batch_stride;
    void* out;
    int out_type;
    int64_t out_batch_stride;
};

template <class Acc>
__global__ void reduce_kernel(ReduceArgs a) {
    const int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    const int64_t batch = blockIdx.y;
    if (o >= a.outputs) return;
    Acc sum = 0;
    const int64_t base = batch * a.x_batch_stride + o * a.output_step;
    for (int64_t r = 0; r < a.count; ++r) sum += load<Acc>(a.x, a.x_type, base + r * a.element_step);
    store<Acc>(a.out, a.out_type, batch * a.out_batch_stride + o, sum);
}

template <class Kernel, class Args>
cudaError_t launch(Kernel kernel, dim3 grid, Args args, cudaStream_t stream) {
    kernel<<<grid, dim3(256), 0, stream>>>(args);
    return cudaGetLastError();
}

/* --- matmul: validated once for the heuristic, the check and the call --- */
struct Problem {
    int64_t m, n, k;
    int batch;
    bool needs_epilogue_kernel;
};

cublasStatus_t describe(const MatmulDesc* desc, const Layout* a, const Layout* b, const Layout* c, const Layout* d,
                        Problem* out, const char* function) {
    if (!desc || !a || !b || !c || !d || desc->magic != kMagic || a->magic != kMagic || b->magic != kMagic ||
        c->magic != kMagic || d->magic != kMagic)
        return fail(CUBLAS_STATUS_NOT_INITIALIZED, function, "a descriptor is null or not initialised");
    for (const Layout* layout : {a, b, c, d}) {
        if (layout->order != CUBLASLT_ORDER_COL)
            return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "only column-major (CUBLASLT_ORDER_COL) matrices");
        if (layout->ld < static_cast<int64_t>(layout->rows) && layout->cols > 1)
            return fail(CUBLAS_STATUS_INVALID_VALUE, function, "leading dimension below the row count");
        if (layout->batch_count != d->batch_count)
            return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "matrices of different batch counts");
        if (layout->batch_mode != 0)
            return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "pointer-array batches");
    }
    if (c->type != d->type) return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "C and D of different types");
    if (desc->pointer_mode != CUBLASLT_POINTER_MODE_HOST && desc->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE)
        return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "alpha vectors (per-row scaling)");
    if (desc->a_scale || desc->b_scale || desc->c_scale || desc->d_scale || desc->amax_d || desc->aux_scale ||
        desc->aux_amax || desc->d_out_scale)
        return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "FP8 scaling factors and amax");
    const bool ta = desc->transa != CUBLAS_OP_N, tb = desc->transb != CUBLAS_OP_N;
    const int64_t m = static_cast<int64_t>(d->rows), n = static_cast<int64_t>(d->cols);
    const int64_t k = static_cast<int64_t>(ta ? a->rows : a->cols);
    if (static_cast<int64_t>(ta ? a->cols : a->rows) != m || static_cast<int64_t>(tb ? b->rows : b->cols) != n ||
        static_cast<int64_t>(tb ? b->cols : b->rows) != k || c->rows != d->rows || c->cols != d->cols)
        return fail(CUBLAS_STATUS_INVALID_VALUE, function, "matrix shapes do not multiply");
    bool known = false;
    for (uint32_t each : kKnownEpilogues) known = known || each == desc->epilogue;
    if (!known) return fail(CUBLAS_STATUS_INVALID_VALUE, function, "unknown epilogue");
    const uint32_t e = desc->epilogue;
    const bool elementwise = e != CUBLASLT_EPILOGUE_DEFAULT && e != CUBLASLT_EPILOGUE_BGRADA &&
                             e != CUBLASLT_EPILOGUE_BGRADB;
    if (elementwise && !elementwise_type(static_cast<int>(d->type)))
        return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "epilogues on D of this type");
    if ((e & (kBias | kBiasGrad | kBiasGradA | kBiasGradB)) && !desc->bias)
        return fail(CUBLAS_STATUS_INVALID_VALUE, function, "the epilogue needs CUBLASLT_MATMUL_DESC_BIAS_POINTER");
    if ((e & kAux) && (!desc->aux || desc->aux_ld < m))
        return fail(CUBLAS_STATUS_INVALID_VALUE, function, "the epilogue needs its auxiliary pointer and leading dimension");
    if ((e & kAux) && (e & (kRelu | kReluGrad)) && desc->aux_ld % 128 != 0)
        return fail(CUBLAS_STATUS_INVALID_VALUE, function, "a ReLU bit mask needs an auxiliary leading dimension divisible by 128");
    if ((e & (kBiasGradA | kBiasGradB)) && !elementwise_type(static_cast<int>(e & kBiasGradA ? a->type : b->type)))
        return fail(CUBLAS_STATUS_NOT_SUPPORTED, function, "bias gradients of inputs of this type");
    *out = Problem{m, n, k, d->batch_count < 1 ? 1 : d->batch_count, elementwise};
    return CUBLAS_STATUS_SUCCESS;
}

int resolved(int type, int fallback) { return type < 0 ? fallback : type; }

bool scalar_is_zero(const void* value, int scale_type) {
    switch (scale_type) {
        case CUDA_R_64F: return *static_cast<const double*>(value) == 0.0;
        case CUDA_R_16F: return __half2float(*static_cast<const __half*>(value)) == 0.0f;
        case CUDA_R_32I: return *static_cast<const int32_t*>(value) == 0;
        default: return *static_cast<const float*>(value) == 0.0f;
    }
}

cublasStatus_t from_cuda(cudaError_t error, const char* function) {
    if (error == cudaSuccess) return CUBLAS_STATUS_SUCCESS;
    return fail(CUBLAS_STATUS_EXECUTION_FAILED, function, cudaGetErrorString(error));
}

template <class Acc>
cudaError_t run_epilogue(const EpilogueArgs& args, int batch, cudaStream_t stream) {
    const int64_t groups = (args.rows + 7) / 8;
    return launch(epilogue_kernel<Acc>,
                  dim3(static_cast<unsigned>((groups + 255) / 256), static_cast<unsigned>(args.cols),
                       static_cast<unsigned>(batch)),
                  args, stream);
}

template <class Acc>
cudaError_t run_reduce(const ReduceArgs& args, int batch, cudaStream_t stream) {
    return launch(reduce_kernel<Acc>,
                  dim3(static_cast<unsigned>((args.outputs + 255) / 256), static_cast<unsigned>(batch)), args,
                  stream);
}

cudaError_t reduce(const ReduceArgs& args, int batch, cudaStream_t stream) {
    return args.out_type == CUDA_R_64F ? run_reduce<double>(args, batch, stream)
                                       : run_reduce<float>(args, batch, stream);
}

}  // namespace

/* --- context, versions, statuses --------------------------------------------------------- */
LT_API cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
    if (!handle) return fail(CUBLAS_STATUS_INVALID_VALUE, __func__, "handle is null");
    cublasLtContext* context = new (std::nothrow) cublasLtContext{};
    if (!context) return CUBLAS_STATUS_ALLOC_FAILED;
    const cublasStatus_t status = cublasCreate(&context->blas);
    if (status != CUBLAS_STATUS_SUCCESS) {
        delete context;
        return fail(status, __func__, "creating the hipBLAS handle failed");
    }
    *handle = context;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    const cublasStatus_t status = cublasDestroy(handle->blas);
    delete handle;
    return status;
}

LT_API const char* cublasLtGetStatusName(cublasStatus_t status) { return moatbridge_cublas_status_text(status, 0); }
LT_API const char* cublasLtGetStatusString(cublasStatus_t status) { return moatbridge_cublas_status_text(status, 1); }
LT_API size_t cublasLtGetVersion(void) { return moatbridge_cublas_version(); }

LT_API size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }

LT_API cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value) {
    if (!value) return CUBLAS_STATUS_INVALID_VALUE;
    const size_t version = cublasLtGetVersion();
    switch (type) {
        case MAJOR_VERSION: *value = static_cast<int>(version / 10000); return CUBLAS_STATUS_SUCCESS;
        case MINOR_VERSION: *value = static_cast<int>(version / 100 % 100); return CUBLAS_STATUS_SUCCESS;
        case PATCH_LEVEL: *value = static_cast<int>(version % 100); return CUBLAS_STATUS_SUCCESS;
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

/* No heuristics to cache: one algorithm (the hipBLAS GEMM); the capacity is kept for reading. */
static size_t heuristics_capacity = 8192;
LT_API cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t* capacity) {
    if (!capacity) return CUBLAS_STATUS_INVALID_VALUE;
    *capacity = heuristics_capacity;
    return CUBLAS_STATUS_SUCCESS;
}
LT_API cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity) {
    heuristics_capacity = capacity;
    return CUBLAS_STATUS_SUCCESS;
}

static unsigned cpu_instruction_mask = 0;
LT_API unsigned cublasLtDisableCpuInstructionsSetMask(unsigned mask) {
    const unsigned previous = cpu_instruction_mask;
    cpu_instruction_mask = mask;
    return previous;
}

/* --- descriptors ------------------------------------------------------------------------- */
template <class T>
static cublasStatus_t create(T** out, size_t opaque_size) {
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    void* memory = std::calloc(1, opaque_size);
    if (!memory) return CUBLAS_STATUS_ALLOC_FAILED;
    *out = static_cast<T*>(memory);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t layout, size_t size, cudaDataType type,
                                                        uint64_t rows, uint64_t cols, int64_t ld) {
    if (!layout || size < sizeof(Layout)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memset(layout, 0, size);
    Layout* made = reinterpret_cast<Layout*>(layout);
    made->type = static_cast<uint32_t>(type);
    made->rows = rows;
    made->cols = cols;
    made->ld = ld;
    made->batch_count = 1;
    made->magic = kMagic;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type, uint64_t rows,
                                                 uint64_t cols, int64_t ld) {
    const cublasStatus_t status = create(layout, sizeof(cublasLtMatrixLayoutOpaque_t));
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    return cublasLtMatrixLayoutInit_internal(*layout, sizeof(cublasLtMatrixLayoutOpaque_t), type, rows, cols, ld);
}

LT_API cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
    std::free(layout);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                       cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                       size_t size) {
    if (!layout) return CUBLAS_STATUS_NOT_INITIALIZED;
    return set_field(layout, layout_field(attr), buf, size, __func__);
}

LT_API cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t layout,
                                                       cublasLtMatrixLayoutAttribute_t attr, void* buf, size_t size,
                                                       size_t* written) {
    if (!layout) return CUBLAS_STATUS_NOT_INITIALIZED;
    return get_field(layout, layout_field(attr), buf, size, written, __func__);
}

LT_API cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t desc, size_t size,
                                                      cublasComputeType_t compute, cudaDataType_t scale) {
    if (!desc || size < sizeof(MatmulDesc)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memset(desc, 0, size);
    MatmulDesc* made = reinterpret_cast<MatmulDesc*>(desc);
    made->compute = static_cast<int32_t>(compute);
    made->scale = static_cast<int32_t>(scale);
    made->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    made->transa = made->transb = made->transc = CUBLAS_OP_N;
    made->fill = CUBLAS_FILL_MODE_FULL;
    made->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    made->aux_type = -1;
    made->bias_type = -1;
    made->magic = kMagic;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                               cudaDataType_t scale) {
    const cublasStatus_t status = create(desc, sizeof(cublasLtMatmulDescOpaque_t));
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    return cublasLtMatmulDescInit_internal(*desc, sizeof(cublasLtMatmulDescOpaque_t), compute, scale);
}

LT_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
    std::free(desc);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                     const void* buf, size_t size) {
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    return set_field(desc, matmul_field(attr), buf, size, __func__);
}

LT_API cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                     void* buf, size_t size, size_t* written) {
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    return get_field(desc, matmul_field(attr), buf, size, written, __func__);
}

LT_API cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t desc, size_t size,
                                                               cudaDataType scale) {
    if (!desc || size < sizeof(TransformDesc)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memset(desc, 0, size);
    TransformDesc* made = reinterpret_cast<TransformDesc*>(desc);
    made->scale = static_cast<int32_t>(scale);
    made->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    made->transa = made->transb = CUBLAS_OP_N;
    made->magic = kMagic;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t* desc, cudaDataType scale) {
    const cublasStatus_t status = create(desc, sizeof(cublasLtMatrixTransformDescOpaque_t));
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    return cublasLtMatrixTransformDescInit_internal(*desc, sizeof(cublasLtMatrixTransformDescOpaque_t), scale);
}

LT_API cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t desc) {
    std::free(desc);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatrixTransformDescSetAttribute(cublasLtMatrixTransformDesc_t desc,
                                                              cublasLtMatrixTransformDescAttributes_t attr,
                                                              const void* buf, size_t size) {
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    return set_field(desc, transform_field(attr), buf, size, __func__);
}

LT_API cublasStatus_t cublasLtMatrixTransformDescGetAttribute(cublasLtMatrixTransformDesc_t desc,
                                                              cublasLtMatrixTransformDescAttributes_t attr, void* buf,
                                                              size_t size, size_t* written) {
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    return get_field(desc, transform_field(attr), buf, size, written, __func__);
}

#if CUDART_VERSION >= 13000
/* FP32 emulation is a speed strategy NVIDIA's tensor cores offer; kept, and the matmul runs in
   native FP32, which is what emulation approximates. */
static Field emulation_field(int attr) {
    switch (attr) {
        case CUBLASLT_EMULATION_DESC_STRATEGY: return LT_FIELD(EmulationDesc, strategy);
        case CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT: return LT_FIELD(EmulationDesc, special_values);
        case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL: return LT_FIELD(EmulationDesc, mantissa_control);
        case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT:
            return LT_FIELD(EmulationDesc, max_mantissa_bits);
        case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET:
            return LT_FIELD(EmulationDesc, mantissa_bit_offset);
        case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER:
            return LT_FIELD(EmulationDesc, mantissa_bit_count);
        default: return kNone;
    }
}

LT_API cublasStatus_t cublasLtEmulationDescInit_internal(cublasLtEmulationDesc_t desc, size_t size) {
    if (!desc || size < sizeof(EmulationDesc)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memset(desc, 0, size);
    reinterpret_cast<EmulationDesc*>(desc)->magic = kMagic;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtEmulationDescCreate(cublasLtEmulationDesc_t* desc) {
    const cublasStatus_t status = create(desc, sizeof(cublasLtEmulationDescOpaque_t));
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    return cublasLtEmulationDescInit_internal(*desc, sizeof(cublasLtEmulationDescOpaque_t));
}

LT_API cublasStatus_t cublasLtEmulationDescDestroy(cublasLtEmulationDesc_t desc) {
    std::free(desc);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtEmulationDescSetAttribute(cublasLtEmulationDesc_t desc,
                                                        cublasLtEmulationDescAttributes_t attr, const void* buf,
                                                        size_t size) {
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    return set_field(desc, emulation_field(attr), buf, size, __func__);
}

LT_API cublasStatus_t cublasLtEmulationDescGetAttribute(cublasLtEmulationDesc_t desc,
                                                        cublasLtEmulationDescAttributes_t attr, void* buf, size_t size,
                                                        size_t* written) {
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    return get_field(desc, emulation_field(attr), buf, size, written, __func__);
}
#endif

LT_API cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size) {
    if (!pref || size < sizeof(Preference)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memset(pref, 0, size);
    Preference* made = reinterpret_cast<Preference*>(pref);
    made->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    made->align_a = made->align_b = made->align_c = made->align_d = 256;
    made->impl_mask = ~0ull;
    made->magic = kMagic;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
    const cublasStatus_t status = create(pref, sizeof(cublasLtMatmulPreferenceOpaque_t));
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    return cublasLtMatmulPreferenceInit_internal(*pref, sizeof(cublasLtMatmulPreferenceOpaque_t));
}

LT_API cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
    std::free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                           cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                                           size_t size) {
    if (!pref) return CUBLAS_STATUS_NOT_INITIALIZED;
    return set_field(pref, preference_field(attr), buf, size, __func__);
}

LT_API cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                           cublasLtMatmulPreferenceAttributes_t attr, void* buf,
                                                           size_t size, size_t* written) {
    if (!pref) return CUBLAS_STATUS_NOT_INITIALIZED;
    return get_field(pref, preference_field(attr), buf, size, written, __func__);
}

/* --- algorithms: one, the hipBLAS GEMM plus the epilogue kernels ------------------------- */
static void fill_result(cublasLtMatmulHeuristicResult_t* result) {
    std::memset(result, 0, sizeof(*result));
    result->workspaceSize = 0;
    result->state = CUBLAS_STATUS_SUCCESS;
    result->wavesCount = 1.0f;
}

static const Layout* layout_of(cublasLtMatrixLayout_t layout) { return reinterpret_cast<const Layout*>(layout); }
static const MatmulDesc* desc_of(cublasLtMatmulDesc_t desc) { return reinterpret_cast<const MatmulDesc*>(desc); }

LT_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                                     cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                     cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                     cublasLtMatmulPreference_t pref, int requested,
                                                     cublasLtMatmulHeuristicResult_t results[], int* returned) {
    if (!handle || !pref) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested < 1 || !results || !returned) return CUBLAS_STATUS_INVALID_VALUE;
    *returned = 0;
    Problem problem;
    const cublasStatus_t status =
        describe(desc_of(desc), layout_of(a), layout_of(b), layout_of(c), layout_of(d), &problem, __func__);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    fill_result(&results[0]);
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t handle, cublasComputeType_t, cudaDataType_t,
                                               cudaDataType_t, cudaDataType_t, cudaDataType_t, cudaDataType_t,
                                               int requested, int ids[], int* returned) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested < 1 || !ids || !returned) return CUBLAS_STATUS_INVALID_VALUE;
    ids[0] = 0;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t handle, cublasComputeType_t, cudaDataType_t,
                                             cudaDataType_t, cudaDataType_t, cudaDataType_t, cudaDataType_t,
                                             int algo_id, cublasLtMatmulAlgo_t* algo) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo) return CUBLAS_STATUS_INVALID_VALUE;
    if (algo_id != 0) return fail(CUBLAS_STATUS_NOT_SUPPORTED, __func__, "the only algorithm is 0");
    std::memset(algo, 0, sizeof(*algo));
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              const cublasLtMatmulAlgo_t* algo,
                                              cublasLtMatmulHeuristicResult_t* result) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo || !result) return CUBLAS_STATUS_INVALID_VALUE;
    if (reinterpret_cast<const AlgoConfig*>(algo)->id != 0)
        return fail(CUBLAS_STATUS_NOT_SUPPORTED, __func__, "the only algorithm is 0");
    Problem problem;
    const cublasStatus_t status =
        describe(desc_of(desc), layout_of(a), layout_of(b), layout_of(c), layout_of(d), &problem, __func__);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    fill_result(result);
    result->algo = *algo;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                        cublasLtMatmulAlgoCapAttributes_t attr, void* buf, size_t size,
                                                        size_t* written) {
    if (!algo) return CUBLAS_STATUS_INVALID_VALUE;
    struct Caps {
        int32_t no, strided_batch, out_of_place;
        uint32_t none, reduction_mask, pointer_modes, epilogues, alignment;
        uint64_t numerical;
    } caps = {0, 1, 1, 0, CUBLASLT_REDUCTION_SCHEME_NONE,
              CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE, 0, 4,
              CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA};
    for (uint32_t each : kKnownEpilogues) caps.epilogues |= each;
    // arrays (tile and stage ids) have no entries: size 0, as for an algorithm without them
    if (attr == CUBLASLT_ALGO_CAP_TILE_IDS || attr == CUBLASLT_ALGO_CAP_STAGES_IDS) {
        if (written) *written = 0;
        return CUBLAS_STATUS_SUCCESS;
    }
    Field field = kNone;
    switch (attr) {
        case CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT: field = LT_FIELD(Caps, strided_batch); break;
        case CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT: field = LT_FIELD(Caps, out_of_place); break;
        case CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK: field = LT_FIELD(Caps, reduction_mask); break;
        case CUBLASLT_ALGO_CAP_POINTER_MODE_MASK: field = LT_FIELD(Caps, pointer_modes); break;
        case CUBLASLT_ALGO_CAP_EPILOGUE_MASK: field = LT_FIELD(Caps, epilogues); break;
        case CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS: field = LT_FIELD(Caps, numerical); break;
        case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES: case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES:
        case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES: case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES:
            field = LT_FIELD(Caps, alignment);
            break;
        case CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT: field = LT_FIELD(Caps, none); break;
        default: field = LT_FIELD(Caps, no); break;  // split-K, uplo, custom options, ...: none
    }
    return get_field(&caps, field, buf, size, written, __func__);
}

LT_API cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t* algo,
                                                           cublasLtMatmulAlgoConfigAttributes_t attr, const void* buf,
                                                           size_t size) {
    if (!algo) return CUBLAS_STATUS_INVALID_VALUE;
    return set_field(algo, config_field(attr), buf, size, __func__);
}

LT_API cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                           cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
                                                           size_t size, size_t* written) {
    if (!algo) return CUBLAS_STATUS_INVALID_VALUE;
    return get_field(algo, config_field(attr), buf, size, written, __func__);
}

/* --- the matmul -------------------------------------------------------------------------- */
LT_API cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc_handle, const void* alpha,
                                     const void* A, cublasLtMatrixLayout_t a_handle, const void* B,
                                     cublasLtMatrixLayout_t b_handle, const void* beta, const void* C,
                                     cublasLtMatrixLayout_t c_handle, void* D, cublasLtMatrixLayout_t d_handle,
                                     const cublasLtMatmulAlgo_t* algo, void*, size_t, cudaStream_t stream) {
    if (!handle) return fail(CUBLAS_STATUS_NOT_INITIALIZED, __func__, "handle is null");
    const MatmulDesc* desc = desc_of(desc_handle);
    const Layout *a = layout_of(a_handle), *b = layout_of(b_handle), *c = layout_of(c_handle),
                 *d = layout_of(d_handle);
    Problem p;
    cublasStatus_t status = describe(desc, a, b, c, d, &p, __func__);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (algo && reinterpret_cast<const AlgoConfig*>(algo)->id != 0)
        return fail(CUBLAS_STATUS_NOT_SUPPORTED, __func__, "the only algorithm is 0");
    if (!alpha || !beta || !A || !B || !D) return fail(CUBLAS_STATUS_INVALID_VALUE, __func__, "a pointer is null");
    const bool device_scalars = desc->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
    if ((status = cublasSetStream(handle->blas, stream)) != CUBLAS_STATUS_SUCCESS) return status;
    status = cublasSetPointerMode(handle->blas, device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
    if (status != CUBLAS_STATUS_SUCCESS) return status;

    const int d_type = static_cast<int>(d->type);
    const size_t esize = element_size(d_type);
    // Out of place: D starts as C (the GEMM then accumulates into D), unless beta is a host zero.
    if (C != D && C && !(!device_scalars && scalar_is_zero(beta, desc->scale))) {
        if (esize == 0) return fail(CUBLAS_STATUS_NOT_SUPPORTED, __func__, "C of this type out of place");
        for (int batch = 0; batch < p.batch; ++batch) {
            const char* from = static_cast<const char*>(C) + batch * c->batch_stride * static_cast<int64_t>(esize);
            char* to = static_cast<char*>(D) + batch * d->batch_stride * static_cast<int64_t>(esize);
            status = from_cuda(cudaMemcpy2DAsync(to, d->ld * esize, from, c->ld * esize, p.m * esize, p.n,
                                                 cudaMemcpyDeviceToDevice, stream),
                               __func__);
            if (status != CUBLAS_STATUS_SUCCESS) return status;
        }
    }
    const cublasOperation_t ta = static_cast<cublasOperation_t>(desc->transa);
    const cublasOperation_t tb = static_cast<cublasOperation_t>(desc->transb);
    const cublasComputeType_t compute = static_cast<cublasComputeType_t>(desc->compute);
    if (p.m > 0 && p.n > 0) {
        if (p.batch == 1) {
            status = cublasGemmEx(handle->blas, ta, tb, static_cast<int>(p.m), static_cast<int>(p.n),
                                  static_cast<int>(p.k), alpha, A, static_cast<cudaDataType>(a->type),
                                  static_cast<int>(a->ld), B, static_cast<cudaDataType>(b->type),
                                  static_cast<int>(b->ld), beta, D, static_cast<cudaDataType>(d->type),
                                  static_cast<int>(d->ld), compute, CUBLAS_GEMM_DEFAULT);
        } else {
            status = cublasGemmStridedBatchedEx(
                handle->blas, ta, tb, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), alpha, A,
                static_cast<cudaDataType>(a->type), static_cast<int>(a->ld), a->batch_stride, B,
                static_cast<cudaDataType>(b->type), static_cast<int>(b->ld), b->batch_stride, beta, D,
                static_cast<cudaDataType>(d->type), static_cast<int>(d->ld), d->batch_stride, p.batch, compute,
                CUBLAS_GEMM_DEFAULT);
        }
        if (status != CUBLAS_STATUS_SUCCESS) return fail(status, __func__, "the hipBLAS GEMM failed");
    }
    const uint32_t e = desc->epilogue;
    const int bias_type = resolved(desc->bias_type, d_type);
    const bool wide = d_type == CUDA_R_64F;
    if (p.needs_epilogue_kernel && p.m > 0 && p.n > 0) {
        EpilogueArgs args{D,     d_type,   d->ld,          d->batch_stride,          p.m,  p.n,
                          e,     desc->bias, bias_type,    desc->bias_batch_stride,  desc->aux,
                          resolved(desc->aux_type, d_type), desc->aux_ld, desc->aux_batch_stride};
        status = from_cuda(wide ? run_epilogue<double>(args, p.batch, stream) : run_epilogue<float>(args, p.batch, stream),
                           __func__);
        if (status != CUBLAS_STATUS_SUCCESS) return status;
    }
    if (e & kBiasGrad) {  // per row of the (gradient) result D
        ReduceArgs args{D, d_type, p.m, p.n, 1, d->ld, d->batch_stride,
                        const_cast<void*>(desc->bias), bias_type, desc->bias_batch_stride};
        status = from_cuda(reduce(args, p.batch, stream), __func__);
    } else if (e & kBiasGradA) {  // per row of op(A), over k
        const bool t = desc->transa != CUBLAS_OP_N;
        ReduceArgs args{A, static_cast<int>(a->type), p.m, p.k, t ? a->ld : 1, t ? 1 : a->ld, a->batch_stride,
                        const_cast<void*>(desc->bias), bias_type, desc->bias_batch_stride};
        status = from_cuda(reduce(args, p.batch, stream), __func__);
    } else if (e & kBiasGradB) {  // per column of op(B), over k
        const bool t = desc->transb != CUBLAS_OP_N;
        ReduceArgs args{B, static_cast<int>(b->type), p.n, p.k, t ? 1 : b->ld, t ? b->ld : 1, b->batch_stride,
                        const_cast<void*>(desc->bias), bias_type, desc->bias_batch_stride};
        status = from_cuda(reduce(args, p.batch, stream), __func__);
    }
    return status;
}

/* --- matrix transform: C = alpha op(A) + beta op(B), any of the column/row orders --- */
namespace {
struct TransformArgs {
    const void *alpha, *beta;
    bool device_scalars, scalars_double;
    double alpha_host, beta_host;
    const void* a;
    const void* b;
    void* c;
    int a_type, b_type, c_type;
    int64_t a_ld, b_ld, c_ld, a_stride, b_stride, c_stride;
    bool a_row, b_row, c_row, a_t, b_t;
    int64_t rows, cols;
};

__device__ int64_t offset(int64_t row, int64_t col, int64_t ld, bool row_major) {
    return row_major ? row * ld + col : col * ld + row;
}

__global__ void transform_kernel(TransformArgs t) {
    const int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    const int64_t col = blockIdx.y, batch = blockIdx.z;
    if (row >= t.rows) return;
    double alpha = t.alpha_host, beta = t.beta_host;
    if (t.device_scalars) {
        alpha = t.scalars_double ? *static_cast<const double*>(t.alpha) : *static_cast<const float*>(t.alpha);
        beta = t.scalars_double ? *static_cast<const double*>(t.beta) : *static_cast<const float*>(t.beta);
    }
    double value = 0;
    if (t.a && alpha != 0) {
        const int64_t at = t.a_t ? offset(col, row, t.a_ld, t.a_row) : offset(row, col, t.a_ld, t.a_row);
        value += alpha * load<double>(t.a, t.a_type, batch * t.a_stride + at);
    }
    if (t.b && beta != 0) {
        const int64_t at = t.b_t ? offset(col, row, t.b_ld, t.b_row) : offset(row, col, t.b_ld, t.b_row);
        value += beta * load<double>(t.b, t.b_type, batch * t.b_stride + at);
    }
    store<double>(t.c, t.c_type, batch * t.c_stride + offset(row, col, t.c_ld, t.c_row), value);
}
}  // namespace

LT_API cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t handle, cublasLtMatrixTransformDesc_t desc_handle,
                                              const void* alpha, const void* A, cublasLtMatrixLayout_t a_handle,
                                              const void* beta, const void* B, cublasLtMatrixLayout_t b_handle,
                                              void* C, cublasLtMatrixLayout_t c_handle, cudaStream_t stream) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    const TransformDesc* desc = reinterpret_cast<const TransformDesc*>(desc_handle);
    const Layout *a = layout_of(a_handle), *b = layout_of(b_handle), *c = layout_of(c_handle);
    if (!desc || desc->magic != kMagic || !c || c->magic != kMagic || !C || !alpha || !beta)
        return fail(CUBLAS_STATUS_INVALID_VALUE, __func__, "a descriptor or pointer is missing");
    for (const Layout* layout : {a, b, c}) {
        if (!layout) continue;
        if (layout->order != CUBLASLT_ORDER_COL && layout->order != CUBLASLT_ORDER_ROW)
            return fail(CUBLAS_STATUS_NOT_SUPPORTED, __func__, "only the column and row orders");
        if (!elementwise_type(static_cast<int>(layout->type)))
            return fail(CUBLAS_STATUS_NOT_SUPPORTED, __func__, "matrices of this type");
    }
    if ((A && !a) || (B && !b)) return fail(CUBLAS_STATUS_INVALID_VALUE, __func__, "a matrix without its layout");
    const bool device_scalars = desc->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
    const bool wide = desc->scale == CUDA_R_64F;
    TransformArgs t{};
    t.alpha = alpha;
    t.beta = beta;
    t.device_scalars = device_scalars;
    t.scalars_double = wide;
    if (!device_scalars) {
        t.alpha_host = wide ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
        t.beta_host = wide ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
    }
    t.a = A;
    t.b = B;
    t.c = C;
    t.c_type = static_cast<int>(c->type);
    t.c_ld = c->ld;
    t.c_stride = c->batch_stride;
    t.c_row = c->order == CUBLASLT_ORDER_ROW;
    t.rows = static_cast<int64_t>(c->rows);
    t.cols = static_cast<int64_t>(c->cols);
    if (a) {
        t.a_type = static_cast<int>(a->type), t.a_ld = a->ld, t.a_stride = a->batch_stride;
        t.a_row = a->order == CUBLASLT_ORDER_ROW, t.a_t = desc->transa != CUBLAS_OP_N;
    }
    if (b) {
        t.b_type = static_cast<int>(b->type), t.b_ld = b->ld, t.b_stride = b->batch_stride;
        t.b_row = b->order == CUBLASLT_ORDER_ROW, t.b_t = desc->transb != CUBLAS_OP_N;
    }
    if (t.rows == 0 || t.cols == 0) return CUBLAS_STATUS_SUCCESS;
    const int batch = c->batch_count < 1 ? 1 : c->batch_count;
    return from_cuda(launch(transform_kernel,
                            dim3(static_cast<unsigned>((t.rows + 255) / 256), static_cast<unsigned>(t.cols),
                                 static_cast<unsigned>(batch)),
                            t, stream),
                     __func__);
}

/* --- logging calls ----------------------------------------------------------------------- */
LT_API cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t callback) {
    Logger& state = logger();
    std::lock_guard<std::mutex> hold(state.lock);
    state.callback = callback;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtLoggerSetFile(FILE* file) {
    Logger& state = logger();
    std::lock_guard<std::mutex> hold(state.lock);
    state.file = file;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtLoggerOpenFile(const char* path) {
    if (!path) return CUBLAS_STATUS_INVALID_VALUE;
    FILE* file = std::fopen(path, "a");
    if (!file) return CUBLAS_STATUS_INVALID_VALUE;
    return cublasLtLoggerSetFile(file);
}

LT_API cublasStatus_t cublasLtLoggerSetLevel(int level) {
    if (level < 0 || level > 5) return CUBLAS_STATUS_INVALID_VALUE;
    Logger& state = logger();
    std::lock_guard<std::mutex> hold(state.lock);
    state.mask = (1 << level) - 1;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtLoggerSetMask(int mask) {
    Logger& state = logger();
    std::lock_guard<std::mutex> hold(state.lock);
    state.mask = mask;
    return CUBLAS_STATUS_SUCCESS;
}

LT_API cublasStatus_t cublasLtLoggerForceDisable(void) {
    Logger& state = logger();
    std::lock_guard<std::mutex> hold(state.lock);
    state.disabled = true;
    return CUBLAS_STATUS_SUCCESS;
}
