// C declarations bound by gpuscipy_core.libs.curand, as in the vendor
// headers (curand.h); input of gpuscipy_core/libs/_generate.py.
// Marks: OUT = output scalar the Python function returns; INOUT = in/out
// scalar passed by value and returned; SEQ = input int array given as a
// Python sequence (or None for NULL). Other pointers are Python ints.
// header: curand.h
// status: curandStatus_t

enum curandStatus { CURAND_STATUS_SUCCESS = 0, CURAND_STATUS_VERSION_MISMATCH = 100, CURAND_STATUS_NOT_INITIALIZED = 101, CURAND_STATUS_ALLOCATION_FAILED = 102, CURAND_STATUS_TYPE_ERROR = 103, CURAND_STATUS_OUT_OF_RANGE = 104, CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105, CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106, CURAND_STATUS_LAUNCH_FAILURE = 201, CURAND_STATUS_PREEXISTING_FAILURE = 202, CURAND_STATUS_INITIALIZATION_FAILED = 203, CURAND_STATUS_ARCH_MISMATCH = 204, CURAND_STATUS_INTERNAL_ERROR = 999 };
enum curandRngType { CURAND_RNG_TEST = 0, CURAND_RNG_PSEUDO_DEFAULT = 100, CURAND_RNG_PSEUDO_XORWOW = 101, CURAND_RNG_PSEUDO_MRG32K3A = 121, CURAND_RNG_PSEUDO_MTGP32 = 141, CURAND_RNG_PSEUDO_MT19937 = 142, CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161, CURAND_RNG_QUASI_DEFAULT = 200, CURAND_RNG_QUASI_SOBOL32 = 201, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202, CURAND_RNG_QUASI_SOBOL64 = 203, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204 };
enum curandOrdering { CURAND_ORDERING_PSEUDO_BEST = 100, CURAND_ORDERING_PSEUDO_DEFAULT = 101, CURAND_ORDERING_PSEUDO_SEEDED = 102, CURAND_ORDERING_PSEUDO_LEGACY = 103, CURAND_ORDERING_PSEUDO_DYNAMIC = 104, CURAND_ORDERING_QUASI_DEFAULT = 201 };
enum curandDirectionVectorSet { CURAND_DIRECTION_VECTORS_32_JOEKUO6 = 101, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 = 102, CURAND_DIRECTION_VECTORS_64_JOEKUO6 = 103, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 = 104 };
enum curandMethod { CURAND_CHOOSE_BEST = 0, CURAND_ITR = 1, CURAND_KNUTH = 2, CURAND_HITR = 3, CURAND_M1 = 4, CURAND_M2 = 5, CURAND_BINARY_SEARCH = 6, CURAND_DISCRETE_GAUSS = 7, CURAND_REJECTION = 8, CURAND_DEVICE_API = 9, CURAND_FAST_REJECTION = 10, CURAND_3RD = 11, CURAND_DEFINITION = 12, CURAND_POISSON = 13 };

curandStatus_t curandCreateGenerator(curandGenerator_t* OUT generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset);
curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int* outputPtr, size_t num);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* outputPtr, size_t num);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double* outputPtr, size_t num);
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* outputPtr, size_t n, float mean, float stddev);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double* outputPtr, size_t n, double mean, double stddev);
curandStatus_t curandGetVersion(int* OUT version);
curandStatus_t curandGetProperty(libraryPropertyType type, int* OUT value);
