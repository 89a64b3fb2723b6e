#include <cstdio>
#include <vector>

#include "scale.h"

int main() {
    std::vector<float> values(1000, 2.0f);
    int status = scale_on_device(values.data(), values.size(), 1.5f);
    if (status != 0) {
        std::printf("no GPU: CUDA error %d\n", status);
        return 2;
    }
    for (float v : values) {
        if (v != 3.0f) {
            std::printf("FAILED\n");
            return 1;
        }
    }
    std::printf("PASSED\n");
    return 0;
}
