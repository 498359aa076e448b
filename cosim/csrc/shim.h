// SPDX-License-Identifier: Apache-2.0
//
// shim.h: generic extern "C" shim over one Verilator model. A per-top .cpp defines
// SHIM_PORTS(IN, OUT) listing its ports and includes this header; build.rs compiles it once per
// model variant with -DVTOP=<class> -DVTOP_H="<class>.h" -DPFX=<symbol prefix>.
//
// ABI (all functions prefixed with PFX_):
//   void*    new()                                  construct model + private VerilatedContext
//   void     delete(void*)                          final() and free
//   void     eval(void*)                            evaluate
//   int32_t  port(const char* name, uint32_t* words) port index (or -1) and its size in u32 words
//   void     set(void*, int32_t idx, const uint32_t* w)  drive input port idx (word 0 = bits 31:0)
//   void     get(void*, int32_t idx, uint32_t* w)        read port idx
//   int32_t  traceable()                            1 if built with --trace-fst (VM_TRACE), else 0
//   int32_t  trace_open(void*, const char* path)    open an FST waveform (1 ok, 0 not traceable)
//   void     trace_dump(void*, uint64_t t)          record every traced signal at time t (ns)
//   void     trace_close(void*)                     flush and close the waveform (if open)
// Tracing costs nothing until trace_open: without a VerilatedFstC the model only keeps its
// change-activity flags.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include "verilated.h"
#include VTOP_H
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

#define SHIM_CAT2(a, b) a##_##b
#define SHIM_CAT(a, b) SHIM_CAT2(a, b)
#define SHIM_FN(n) SHIM_CAT(PFX, n)

namespace {
struct Sim {
    VerilatedContext ctx;
    VTOP* m;
#if VM_TRACE
    VerilatedFstC* tfp = nullptr;
    Sim() {
        ctx.traceEverOn(true);  // before the model is built
        m = new VTOP{&ctx, "TOP"};
        ctx.timeprecision(-9);  // waveform time in ns (the model's constructor set the design's)
    }
    void close() {
        if (tfp) {
            tfp->close();
            delete tfp;
            tfp = nullptr;
        }
    }
    ~Sim() { close(); m->final(); delete m; }
#else
    Sim() : m(new VTOP{&ctx, "TOP"}) {}
    ~Sim() { m->final(); delete m; }
#endif
};

// Scalar ports (CData/SData/IData/QData) and wide ports (VlWide<N>).
template <typename T> struct Words { static constexpr uint32_t value = sizeof(T) > 4 ? 2 : 1; };
template <std::size_t N> struct Words<VlWide<N>> { static constexpr uint32_t value = N; };
#define SHIM_WORDS(p) \
    Words<std::remove_cv_t<std::remove_reference_t<decltype(std::declval<VTOP&>().p)>>>::value
template <typename T> inline void put(T& p, const uint32_t* w) {
    uint64_t v = w[0];
    if (sizeof(T) > 4) v |= static_cast<uint64_t>(w[1]) << 32;
    p = static_cast<T>(v);
}
template <std::size_t N> inline void put(VlWide<N>& p, const uint32_t* w) {
    for (std::size_t i = 0; i < N; i++) p[i] = w[i];
}
template <typename T> inline void take(const T& p, uint32_t* w) {
    const uint64_t v = static_cast<uint64_t>(p);
    w[0] = static_cast<uint32_t>(v);
    if (sizeof(T) > 4) w[1] = static_cast<uint32_t>(v >> 32);
}
template <std::size_t N> inline void take(const VlWide<N>& p, uint32_t* w) {
    for (std::size_t i = 0; i < N; i++) w[i] = p[i];
}
}  // namespace

// Port table: index = position in SHIM_PORTS.
#define SHIM_NAME_IN(p) #p,
#define SHIM_NAME_OUT(p) #p,
static const char* const shim_port_names[] = {SHIM_PORTS(SHIM_NAME_IN, SHIM_NAME_OUT)};
static const int32_t shim_num_ports = sizeof(shim_port_names) / sizeof(shim_port_names[0]);

extern "C" {
void* SHIM_FN(new)() { return new Sim(); }
void SHIM_FN(delete)(void* s) { delete static_cast<Sim*>(s); }
void SHIM_FN(eval)(void* s) { static_cast<Sim*>(s)->m->eval(); }

int32_t SHIM_FN(port)(const char* name, uint32_t* words) {
    int32_t idx = 0;
#define SHIM_LOOK_IN(p)                                                   \
    if (std::strcmp(name, #p) == 0) {                                     \
        *words = SHIM_WORDS(p);                                 \
        return idx;                                                       \
    }                                                                     \
    idx++;
#define SHIM_LOOK_OUT(p) SHIM_LOOK_IN(p)
    SHIM_PORTS(SHIM_LOOK_IN, SHIM_LOOK_OUT)
    return -1;
}

void SHIM_FN(set)(void* sp, int32_t i, const uint32_t* w) {
    Sim* s = static_cast<Sim*>(sp);
    int32_t idx = 0;
#define SHIM_SET_IN(p)                 \
    if (i == idx) put(s->m->p, w);     \
    idx++;
#define SHIM_SET_OUT(p) idx++;
    SHIM_PORTS(SHIM_SET_IN, SHIM_SET_OUT)
}

int32_t SHIM_FN(traceable)() { return VM_TRACE ? 1 : 0; }

#if VM_TRACE
int32_t SHIM_FN(trace_open)(void* sp, const char* path) {
    Sim* s = static_cast<Sim*>(sp);
    s->close();
    s->tfp = new VerilatedFstC;
    s->m->trace(s->tfp, 99);  // depth is fixed at verilation (--trace-depth)
    s->tfp->open(path);
    if (!s->tfp->isOpen()) {
        s->close();
        return 0;
    }
    return 1;
}
void SHIM_FN(trace_dump)(void* sp, uint64_t t) {
    Sim* s = static_cast<Sim*>(sp);
    if (s->tfp) s->tfp->dump(t);
}
void SHIM_FN(trace_close)(void* sp) { static_cast<Sim*>(sp)->close(); }
#else
int32_t SHIM_FN(trace_open)(void*, const char*) { return 0; }
void SHIM_FN(trace_dump)(void*, uint64_t) {}
void SHIM_FN(trace_close)(void*) {}
#endif

void SHIM_FN(get)(void* sp, int32_t i, uint32_t* w) {
    Sim* s = static_cast<Sim*>(sp);
    int32_t idx = 0;
#define SHIM_GET(p)                     \
    if (i == idx) take(s->m->p, w);     \
    idx++;
    SHIM_PORTS(SHIM_GET, SHIM_GET)
}
}
