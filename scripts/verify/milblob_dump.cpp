// Reads a weight.bin with Core ML's own MIL blob reader (MILBlob::Blob::StorageReader,
// built from a coremltools checkout by scripts/verify/mlprogram.sh; not part of this
// repository) and prints, per blob the file lists: the metadata offset, the data type
// number, the data offset and size, and the values as float32 in hexadecimal bit
// patterns (float32 blobs) or float16 ones (float16 blobs), the bytes of uint8 and int8 blobs in hexadecimal, or
// the values of sub-byte blobs (int4, uint1, uint2, uint3, uint4, uint6: iOS 18's) in decimal, one blob a line.
#include "MILBlob/Blob/StorageReader.hpp"
#include "MILBlob/Fp16.hpp"
#include "MILBlob/SubByteTypes.hpp"
#include <cinttypes>
#include <cstdio>
#include <cstring>

// Prints each value of a sub-byte blob as the integer Core ML's reader unpacks.
template <typename T>
static void printSubByte(const MILBlob::Blob::StorageReader &reader, uint64_t offset) {
    auto values = reader.GetDataView<T>(offset);
    for (size_t i = 0; i < values.Size(); ++i) {
        std::printf(" %d", values.ValueAt(i).GetInt());
    }
}

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
            } else if (type == MILBlob::Blob::BlobDataType::Int8) {
                auto values = reader.GetDataView<int8_t>(offset);
                for (size_t i = 0; i < values.Size(); ++i) {
                    std::printf(" %02x", static_cast<unsigned>(static_cast<uint8_t>(values[i])));
                }
            } else if (type == MILBlob::Blob::BlobDataType::Int4) {
                printSubByte<MILBlob::Int4>(reader, offset);
            } else if (type == MILBlob::Blob::BlobDataType::UInt1) {
                printSubByte<MILBlob::UInt1>(reader, offset);
            } else if (type == MILBlob::Blob::BlobDataType::UInt2) {
                printSubByte<MILBlob::UInt2>(reader, offset);
            } else if (type == MILBlob::Blob::BlobDataType::UInt3) {
                printSubByte<MILBlob::UInt3>(reader, offset);
            } else if (type == MILBlob::Blob::BlobDataType::UInt4) {
                printSubByte<MILBlob::UInt4>(reader, offset);
            } else if (type == MILBlob::Blob::BlobDataType::UInt6) {
                printSubByte<MILBlob::UInt6>(reader, offset);
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
