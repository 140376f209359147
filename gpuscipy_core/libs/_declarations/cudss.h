// C declarations bound by gpuscipy_core.libs.cudss, as in the vendor
// headers (cudss.h, cudss_data_types.h of cuDSS 1.0); input of
// gpuscipy_core/libs/_generate.py. The "variant v0" section holds the same
// declarations as in cuDSS 0.7.x's cudss.h (checked against 0.7.1): the
// generator binds the prototypes whose ABI differs under private names
// (_v0_<name>) and exports the variant's enums (_VARIANT_ENUMS) so that
// gpuscipy_core/libs/cudss.py can translate the 1.0 API for a 0.7 library.
// An empty enum in a variant: the type does not exist in that version.
// Marks: OUT = output scalar the Python function returns; INOUT = in/out
// scalar passed by value and returned; SEQ = input int array given as a
// Python sequence (or None for NULL). Other pointers are Python ints.
// header: cudss.h
// status: cudssStatus_t

enum cudssSolveMode_t { CUDSS_SOLVE_MODE_NORMAL = 0, CUDSS_SOLVE_MODE_TRANSPOSE = 1, CUDSS_SOLVE_MODE_CONJUGATE_TRANSPOSE = 2 };
enum cudssMemoryEstimateState_t { CUDSS_MEMORY_ESTIMATE_STATE_NONE = 0, CUDSS_MEMORY_ESTIMATE_STATE_FILL_KNOWN = 1, CUDSS_MEMORY_ESTIMATE_STATE_FINAL = 2 };
enum cudssDowncastFactorsMode_t { CUDSS_DOWNCAST_FACTORS_MODE_DISABLED = 0, CUDSS_DOWNCAST_FACTORS_MODE_KEEP_BLOCK_DIAGONAL = 1, CUDSS_DOWNCAST_FACTORS_MODE_KEEP_STRICT_DIAGONAL = 2 };
enum cudssMemoryOptimizationFlags_t { CUDSS_MEMORY_OPTIMIZATION_DEFAULT = 0, CUDSS_MEMORY_OPTIMIZATION_SOLVE_ONLY = 1 };
enum cudssConfigParam_t { CUDSS_CONFIG_REORDERING_ALG = 0, CUDSS_CONFIG_FACTORIZATION_ALG = 1, CUDSS_CONFIG_SOLVE_ALG = 2, CUDSS_CONFIG_MATCHING_ALG = 3, CUDSS_CONFIG_SOLVE_MODE = 4, CUDSS_CONFIG_IR_N_STEPS = 5, CUDSS_CONFIG_IR_TOL = 6, CUDSS_CONFIG_PIVOT_TYPE = 7, CUDSS_CONFIG_PIVOT_THRESHOLD = 8, CUDSS_CONFIG_PIVOT_EPSILON = 9, CUDSS_CONFIG_MAX_LU_NNZ = 10, CUDSS_CONFIG_HYBRID_MEMORY_MODE = 11, CUDSS_CONFIG_HYBRID_DEVICE_MEMORY_LIMIT = 12, CUDSS_CONFIG_USE_CUDA_REGISTER_MEMORY = 13, CUDSS_CONFIG_HOST_NTHREADS = 14, CUDSS_CONFIG_HYBRID_EXECUTE_MODE = 15, CUDSS_CONFIG_PIVOT_EPSILON_ALG = 16, CUDSS_CONFIG_ND_NLEVELS = 17, CUDSS_CONFIG_UBATCH_SIZE = 18, CUDSS_CONFIG_UBATCH_INDEX = 19, CUDSS_CONFIG_USE_SUPERPANELS = 20, CUDSS_CONFIG_DEVICE_COUNT = 21, CUDSS_CONFIG_DEVICE_INDICES = 22, CUDSS_CONFIG_SCHUR_MODE = 23, CUDSS_CONFIG_DETERMINISTIC_MODE = 24, CUDSS_CONFIG_ND_UBFACTOR = 25, CUDSS_CONFIG_EMULATION_MANTISSA_BIT_COUNT = 26, CUDSS_CONFIG_FORCE_NONSYMMETRIC_MATCHING = 27, CUDSS_CONFIG_DOWNCAST_FACTORS = 28, CUDSS_CONFIG_MEMORY_OPTIMIZATION_SETTING = 29 };
enum cudssDataParam_t { CUDSS_DATA_INFO = 0, CUDSS_DATA_LU_NNZ = 1, CUDSS_DATA_NPIVOTS = 2, CUDSS_DATA_INERTIA = 3, CUDSS_DATA_PERM_REORDER_ROW = 4, CUDSS_DATA_PERM_REORDER_COL = 5, CUDSS_DATA_PERM_ROW = 6, CUDSS_DATA_PERM_COL = 7, CUDSS_DATA_DIAG = 8, CUDSS_DATA_USER_PERM = 9, CUDSS_DATA_HYBRID_DEVICE_MEMORY_MIN = 10, CUDSS_DATA_COMM_DEVICE = 11, CUDSS_DATA_COMM_HOST = 12, CUDSS_DATA_MEMORY_ESTIMATES = 13, CUDSS_DATA_PERM_MATCHING = 14, CUDSS_DATA_SCALE_ROW = 15, CUDSS_DATA_SCALE_COL = 16, CUDSS_DATA_NSUPERPANELS = 17, CUDSS_DATA_USER_SCHUR_INDICES = 18, CUDSS_DATA_SCHUR_SHAPE = 19, CUDSS_DATA_SCHUR_MATRIX = 20, CUDSS_DATA_USER_ND_PARTITION_TREE = 21, CUDSS_DATA_ND_PARTITION_TREE = 22, CUDSS_DATA_USER_HOST_INTERRUPT = 23, CUDSS_DATA_IR_N_STEPS = 24, CUDSS_DATA_UBATCH_MASK = 25, CUDSS_DATA_FLOPS = 26 };
enum cudssPhase_t { CUDSS_PHASE_REORDERING = 1, CUDSS_PHASE_SYMBOLIC_FACTORIZATION = 2, CUDSS_PHASE_ANALYSIS = 3, CUDSS_PHASE_FACTORIZATION = 4, CUDSS_PHASE_REFACTORIZATION = 8, CUDSS_PHASE_SOLVE_FWD_PERM = 16, CUDSS_PHASE_SOLVE_FWD = 32, CUDSS_PHASE_SOLVE_DIAG = 64, CUDSS_PHASE_SOLVE_BWD = 128, CUDSS_PHASE_SOLVE_BWD_PERM = 256, CUDSS_PHASE_SOLVE_REFINEMENT = 512, CUDSS_PHASE_SOLVE = 1008 };
enum cudssStatus_t { CUDSS_STATUS_SUCCESS = 0, CUDSS_STATUS_NOT_INITIALIZED = 1, CUDSS_STATUS_ALLOC_FAILED = 2, CUDSS_STATUS_INVALID_VALUE = 3, CUDSS_STATUS_NOT_SUPPORTED = 4, CUDSS_STATUS_EXECUTION_FAILED = 5, CUDSS_STATUS_INTERNAL_ERROR = 6, CUDSS_STATUS_IR_FAILED = 7 };
enum cudssMatrixType_t { CUDSS_MTYPE_GENERAL = 0, CUDSS_MTYPE_SYMMETRIC = 1, CUDSS_MTYPE_HERMITIAN = 2, CUDSS_MTYPE_SPD = 3, CUDSS_MTYPE_HPD = 4 };
enum cudssMatrixViewType_t { CUDSS_MVIEW_FULL = 0, CUDSS_MVIEW_LOWER = 1, CUDSS_MVIEW_UPPER = 2 };
enum cudssIndexBase_t { CUDSS_BASE_ZERO = 0, CUDSS_BASE_ONE = 1 };
enum cudssLayout_t { CUDSS_LAYOUT_COL_MAJOR = 0, CUDSS_LAYOUT_ROW_MAJOR = 1 };
enum cudssReorderingAlg_t { CUDSS_REORDERING_ALG_DEFAULT = 0, CUDSS_REORDERING_ALG_BTF_COLAMD = 1, CUDSS_REORDERING_ALG_COLAMD = 2, CUDSS_REORDERING_ALG_AMD = 3, CUDSS_REORDERING_ALG_NESTED_DISSECTION = 4, CUDSS_REORDERING_ALG_NONE = 5 };
enum cudssFactorizationAlg_t { CUDSS_FACTORIZATION_ALG_DEFAULT = 0, CUDSS_FACTORIZATION_ALG_MULTIBLOCK = 1, CUDSS_FACTORIZATION_ALG_GENERAL = 2 };
enum cudssPivotEpsilonAlg_t { CUDSS_PIVOT_EPSILON_ALG_DEFAULT = 0, CUDSS_PIVOT_EPSILON_ALG_SCALED = 1, CUDSS_PIVOT_EPSILON_ALG_STATIC = 2 };
enum cudssSolveAlg_t { CUDSS_SOLVE_ALG_DEFAULT = 0, CUDSS_SOLVE_ALG_GENERAL = 1 };
enum cudssMatchingAlg_t { CUDSS_MATCHING_ALG_NONE = 0, CUDSS_MATCHING_ALG_MAX_DIAG_COUNT = 1, CUDSS_MATCHING_ALG_MAX_MIN_DIAG = 2, CUDSS_MATCHING_ALG_MAX_MIN_DIAG_ALT = 3, CUDSS_MATCHING_ALG_MAX_DIAG_SUM = 4, CUDSS_MATCHING_ALG_MAX_DIAG_PRODUCT = 5, CUDSS_MATCHING_ALG_AUTO = 6 };
enum cudssPivotType_t { CUDSS_PIVOT_AUTO = 0, CUDSS_PIVOT_NONE = 1, CUDSS_PIVOT_GLOBAL_COL = 2, CUDSS_PIVOT_GLOBAL_ROW = 3, CUDSS_PIVOT_DIAGONAL = 4, CUDSS_PIVOT_LOCAL_BLOCK = 5, CUDSS_PIVOT_BUNCH_KAUFMAN = 6 };
enum cudssMatrixFormat_t { CUDSS_MFORMAT_DENSE = 1, CUDSS_MFORMAT_CSR = 2, CUDSS_MFORMAT_BATCH = 4, CUDSS_MFORMAT_DISTRIBUTED = 8 };

cudssStatus_t cudssCreate(cudssHandle_t* OUT handle);
cudssStatus_t cudssDestroy(cudssHandle_t handle);
cudssStatus_t cudssSetStream(cudssHandle_t handle, cudaStream_t stream);
cudssStatus_t cudssConfigCreate(cudssConfig_t* OUT config);
cudssStatus_t cudssConfigDestroy(cudssConfig_t config);
cudssStatus_t cudssConfigSet(cudssConfig_t config, cudssConfigParam_t param, const void* value, size_t sizeInBytes);
cudssStatus_t cudssConfigGet(const cudssConfig_t config, cudssConfigParam_t param, void* value, size_t sizeInBytes, size_t* OUT sizeWritten);
cudssStatus_t cudssDataCreate(const cudssHandle_t handle, cudssData_t* OUT data);
cudssStatus_t cudssDataDestroy(cudssHandle_t handle, cudssData_t data);
cudssStatus_t cudssDataSet(const cudssHandle_t handle, cudssData_t data, cudssDataParam_t param, const void* value, size_t sizeInBytes);
cudssStatus_t cudssDataGet(const cudssHandle_t handle, const cudssData_t data, cudssDataParam_t param, void* value, size_t sizeInBytes, size_t* OUT sizeWritten);
cudssStatus_t cudssMatrixCreateCsr(cudssMatrix_t* OUT matrix, int64_t nrows, int64_t ncols, int64_t nnz, const void* rowStart, const void* rowEnd, const void* colIndices, const void* values, cudaDataType_t offsetType, cudaDataType_t indexType, cudaDataType_t valueType, cudssMatrixType_t mtype, cudssMatrixViewType_t mview, cudssIndexBase_t indexBase);
cudssStatus_t cudssMatrixCreateDn(cudssMatrix_t* OUT matrix, int64_t nrows, int64_t ncols, int64_t ld, const void* values, cudaDataType_t valueType, cudssLayout_t layout);
cudssStatus_t cudssMatrixDestroy(cudssMatrix_t matrix);
cudssStatus_t cudssMatrixSetValues(cudssMatrix_t matrix, const void* values);
cudssStatus_t cudssMatrixSetCsrPointers(cudssMatrix_t matrix, const void* rowStart, const void* rowEnd, const void* colIndices, const void* values);
cudssStatus_t cudssExecute(cudssHandle_t handle, int phase, const cudssConfig_t config, cudssData_t data, const cudssMatrix_t inputMatrix, cudssMatrix_t solution, const cudssMatrix_t rhs);
cudssStatus_t cudssGetProperty(libraryPropertyType propertyType, int* OUT value);

// variant v0: CUDSS_VERSION < 800
enum cudssConfigParam_t { CUDSS_CONFIG_REORDERING_ALG = 0, CUDSS_CONFIG_FACTORIZATION_ALG = 1, CUDSS_CONFIG_SOLVE_ALG = 2, CUDSS_CONFIG_USE_MATCHING = 3, CUDSS_CONFIG_MATCHING_ALG = 4, CUDSS_CONFIG_SOLVE_MODE = 5, CUDSS_CONFIG_IR_N_STEPS = 6, CUDSS_CONFIG_IR_TOL = 7, CUDSS_CONFIG_PIVOT_TYPE = 8, CUDSS_CONFIG_PIVOT_THRESHOLD = 9, CUDSS_CONFIG_PIVOT_EPSILON = 10, CUDSS_CONFIG_MAX_LU_NNZ = 11, CUDSS_CONFIG_HYBRID_MODE = 12, CUDSS_CONFIG_HYBRID_DEVICE_MEMORY_LIMIT = 13, CUDSS_CONFIG_USE_CUDA_REGISTER_MEMORY = 14, CUDSS_CONFIG_HOST_NTHREADS = 15, CUDSS_CONFIG_HYBRID_EXECUTE_MODE = 16, CUDSS_CONFIG_PIVOT_EPSILON_ALG = 17, CUDSS_CONFIG_ND_NLEVELS = 18, CUDSS_CONFIG_UBATCH_SIZE = 19, CUDSS_CONFIG_UBATCH_INDEX = 20, CUDSS_CONFIG_USE_SUPERPANELS = 21, CUDSS_CONFIG_DEVICE_COUNT = 22, CUDSS_CONFIG_DEVICE_INDICES = 23, CUDSS_CONFIG_SCHUR_MODE = 24, CUDSS_CONFIG_DETERMINISTIC_MODE = 25 };
enum cudssDataParam_t { CUDSS_DATA_INFO = 0, CUDSS_DATA_LU_NNZ = 1, CUDSS_DATA_NPIVOTS = 2, CUDSS_DATA_INERTIA = 3, CUDSS_DATA_PERM_REORDER_ROW = 4, CUDSS_DATA_PERM_REORDER_COL = 5, CUDSS_DATA_PERM_ROW = 6, CUDSS_DATA_PERM_COL = 7, CUDSS_DATA_DIAG = 8, CUDSS_DATA_USER_PERM = 9, CUDSS_DATA_HYBRID_DEVICE_MEMORY_MIN = 10, CUDSS_DATA_COMM = 11, CUDSS_DATA_MEMORY_ESTIMATES = 12, CUDSS_DATA_PERM_MATCHING = 13, CUDSS_DATA_SCALE_ROW = 14, CUDSS_DATA_SCALE_COL = 15, CUDSS_DATA_NSUPERPANELS = 16, CUDSS_DATA_USER_SCHUR_INDICES = 17, CUDSS_DATA_SCHUR_SHAPE = 18, CUDSS_DATA_SCHUR_MATRIX = 19, CUDSS_DATA_USER_ELIMINATION_TREE = 20, CUDSS_DATA_ELIMINATION_TREE = 21, CUDSS_DATA_USER_HOST_INTERRUPT = 22 };
enum cudssStatus_t { CUDSS_STATUS_SUCCESS = 0, CUDSS_STATUS_NOT_INITIALIZED = 1, CUDSS_STATUS_ALLOC_FAILED = 2, CUDSS_STATUS_INVALID_VALUE = 3, CUDSS_STATUS_NOT_SUPPORTED = 4, CUDSS_STATUS_EXECUTION_FAILED = 5, CUDSS_STATUS_INTERNAL_ERROR = 6 };
enum cudssAlgType_t { CUDSS_ALG_DEFAULT = 0, CUDSS_ALG_1 = 1, CUDSS_ALG_2 = 2, CUDSS_ALG_3 = 3, CUDSS_ALG_4 = 4, CUDSS_ALG_5 = 5 };
enum cudssPivotType_t { CUDSS_PIVOT_COL = 0, CUDSS_PIVOT_ROW = 1, CUDSS_PIVOT_NONE = 2 };
enum cudssSolveMode_t { };
enum cudssMemoryEstimateState_t { };
enum cudssDowncastFactorsMode_t { };
enum cudssMemoryOptimizationFlags_t { };
enum cudssReorderingAlg_t { };
enum cudssFactorizationAlg_t { };
enum cudssPivotEpsilonAlg_t { };
enum cudssSolveAlg_t { };
enum cudssMatchingAlg_t { };
cudssStatus_t cudssConfigSet(cudssConfig_t config, cudssConfigParam_t param, void* value, size_t sizeInBytes);
cudssStatus_t cudssConfigGet(cudssConfig_t config, cudssConfigParam_t param, void* value, size_t sizeInBytes, size_t* OUT sizeWritten);
cudssStatus_t cudssDataCreate(cudssHandle_t handle, cudssData_t* OUT solverData);
cudssStatus_t cudssDataSet(cudssHandle_t handle, cudssData_t data, cudssDataParam_t param, void* value, size_t sizeInBytes);
cudssStatus_t cudssDataGet(cudssHandle_t handle, cudssData_t data, cudssDataParam_t param, void* value, size_t sizeInBytes, size_t* OUT sizeWritten);
cudssStatus_t cudssMatrixCreateCsr(cudssMatrix_t* OUT matrix, int64_t nrows, int64_t ncols, int64_t nnz, void* rowStart, void* rowEnd, void* colIndices, void* values, cudaDataType_t indexType, cudaDataType_t valueType, cudssMatrixType_t mtype, cudssMatrixViewType_t mview, cudssIndexBase_t indexBase);
cudssStatus_t cudssMatrixCreateDn(cudssMatrix_t* OUT matrix, int64_t nrows, int64_t ncols, int64_t ld, void* values, cudaDataType_t valueType, cudssLayout_t layout);
cudssStatus_t cudssMatrixSetValues(cudssMatrix_t matrix, void* values);
cudssStatus_t cudssMatrixSetCsrPointers(cudssMatrix_t matrix, void* rowOffsets, void* rowEnd, void* colIndices, void* values);
cudssStatus_t cudssExecute(cudssHandle_t handle, int phase, cudssConfig_t solverConfig, cudssData_t solverData, cudssMatrix_t inputMatrix, cudssMatrix_t solution, cudssMatrix_t rhs);
// end variant
