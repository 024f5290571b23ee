// Reads a weight.bin with Core ML's own MIL blob reader (MILBlob::Blob::StorageReader,
// built from a coremltools checkout by scripts/verify/mlprogram.sh; not part of this
// repository) and prints, per blob the file lists: the metadata offset, the data type
// number, the data offset and size, and the values as float32 in hexadecimal bit
// patterns (float32 blobs) or float16 ones (float16 blobs), or the bytes of uint8 blobs, one blob a line.
#include "MILBlob/Blob/StorageReader.hpp"
#include "MILBlob/Fp16.hpp"
#include <cinttypes>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: milblob_dump weight.bin\n");
        return 2;
    }
    try {
        MILBlob::Blob::StorageReader reader(argv[1]);
        for (uint64_t offset : reader.GetAllOffsets()) {
            auto type = reader.GetDataType(offset);
            std::printf("%" PRIu64 " %u %" PRIu64 " %" PRIu64, offset, static_cast<unsigned>(type),
                        reader.GetDataOffset(offset), reader.GetDataSize(offset));
            if (type == MILBlob::Blob::BlobDataType::Float32) {
                auto values = reader.GetDataView<float>(offset);
                for (size_t i = 0; i < values.Size(); ++i) {
                    uint32_t bits;
                    std::memcpy(&bits, &values[i], 4);
                    std::printf(" %08x", bits);
                }
            } else if (type == MILBlob::Blob::BlobDataType::UInt8) {
                auto values = reader.GetDataView<uint8_t>(offset);
                for (size_t i = 0; i < values.Size(); ++i) {
                    std::printf(" %02x", static_cast<unsigned>(values[i]));
                }
            } else if (type == MILBlob::Blob::BlobDataType::Float16) {
                auto values = reader.GetDataView<MILBlob::Fp16>(offset);
                for (size_t i = 0; i < values.Size(); ++i) {
                    std::printf(" %04x", static_cast<unsigned>(values[i].bytes));
                }
            }
            std::printf("\n");
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "milblob_dump: %s\n", error.what());
        return 1;
    }
    return 0;
}
