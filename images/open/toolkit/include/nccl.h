/* moatbridge CUDA compatibility header (open flavour): NCCL is RCCL where the stack has it. */
#pragma once
#if !__has_include(<rccl/rccl.h>)
#error "moatbridge: NCCL has no counterpart in this stack: its ROCm packages no RCCL (see /opt/moatbridge/stack.env, RCCL=no). Use a stack with RCCL (trixie, experimental) for nccl.h and -lnccl."
#include <moatbridge/NCCL-is-not-in-this-stack.h> /* (no such file: stops the compile here) */
#else
#include <moatbridge/runtime.h>
#include <moatbridge/hide_cuda_macros.h>
#include <rccl/rccl.h>
#include <moatbridge/restore_cuda_macros.h>
#endif
