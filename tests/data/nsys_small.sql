-- A small Nsight Systems SQLite export (nsys export --type sqlite), written by hand for the
-- importer tests from the documented schema (Nsight Systems "SQLite Schema Reference", schema
-- 3.28.1, and "SQLite Schema Event Values"). Only the tables the importer reads are here, with all
-- of their documented columns, plus ENUM_CUDA_MEM_KIND to show Nsight's memory-kind numbering.
--
-- The story: process 24817 runs one training step on GPU 0 of a two-GPU machine.
--   globalTid = <hardware:8><VM:8><pid:24><tid:24>; real exports have VM id 1:
--   main thread   (1 << 48) | (24817 << 24) | 24817 = 281891336904945
--   loader thread (1 << 48) | (24817 << 24) | 24903 = 281891336905031
--   globalPid     (1 << 48) | (24817 << 24)         = 281891336880128
-- NVTX: "train_step" (inline text) encloses "forward" (registered string, textId 30), which
-- encloses four cudaLaunchKernel calls, and "loss", which encloses a cuLaunchKernel (driver) call.
-- The loader thread has a start/end range; "optimizer.step" is pushed but never popped.
-- The NCCL kernel on GPU 1 has correlation id 300, which no API call has.

CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.28.1');

CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES
  (1, 'cudaMemcpyAsync_v3020'),
  (2, 'cudaMemsetAsync_v3020'),
  (3, 'cudaLaunchKernel_v7000'),
  (4, 'cuLaunchKernel'),
  (5, 'cudaLaunchKernel'),
  (6, 'cudaStreamSynchronize_v3020'),
  (10, 'ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn'),
  (12, 'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<char *, 3>>(int, at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<char *, 3>)'),
  (13, 'vectorized_elementwise_kernel'),
  (14, '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIN3c104HalfEEENS_6detail5ArrayIPcLi3EEEEEviT0_T1_'),
  (15, 'void cudnn::ops::nchwToNhwcKernel<__half, __half, float, false, true, (cudnnKernelDataType_t)0>(cudnn::ops::nchwToNhwc_params_t<float>, const __half *, __half *)'),
  (16, 'nchwToNhwcKernel'),
  (17, 'sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16'),
  (18, 'void at::native::<unnamed>::cunn_SoftMaxForward<8, c10::Half, float, c10::Half, at::native::<unnamed>::SoftMaxForwardEpilogue>(c10::Half *, const c10::Half *, int)'),
  (19, 'cunn_SoftMaxForward'),
  (20, 'ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)'),
  (21, 'ncclDevKernel_AllReduce_Sum_f16_RING_LL'),
  (30, 'forward'),
  (40, 'python3'),
  (41, 'pt_data_worker'),
  (42, 'CUPTI worker thread');

CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES
  (40, 0, 281891336904945),
  (41, 0, 281891336905031),
  (42, 0, 281891336904958);  -- a thread without events: names no thread in the trace

CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES
  (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
  (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),
  (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),
  (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'),
  (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),
  (5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC', 'Device Static'),
  (6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC', 'Managed Static'),
  (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');

CREATE TABLE TARGET_INFO_GPU (
  vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, isDiscrete INTEGER,
  l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER,
  ctxswDevPath TEXT, ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER,
  maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER,
  maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER,
  threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER,
  maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER, maxBlockDimZ INTEGER,
  maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER,
  computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER, numaNodeId INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES
  (0, 0, 'NVIDIA A100-SXM4-80GB', '0000:07:00.0', 1, 41943040, 85899345920, 2039000000000,
   1410000000, 108, 1, 'GPU-6c4f5b0e-2a1d-4c3e-9f7b-1d2e3f4a5b6c', 0, 'GA100', 0,
   '/dev/nvidia-ctxsw0', '/dev/nvidiactl', 161, 1, 65536, 4, 65536, 49152, 166912, 167936, 65536,
   32, 3, 64, 32, 1024, 1024, 1024, 64, 2147483647, 65535, 65535, 8, 0, 8, 0, 0),
  (0, 1, 'NVIDIA RTX A6000', '0000:41:00.0', 1, 6291456, 51527024640, 768000000000,
   1800000000, 84, 2, 'GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9', 0, 'GA102', 1,
   '/dev/nvidia-ctxsw1', '/dev/nvidiactl', 161, 2, 65536, 4, 65536, 49152, 101376, 102400, 65536,
   32, 2, 48, 16, 1024, 1024, 1024, 64, 2147483647, 65535, 65535, 8, 6, 8, 6, 1);

CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,
  graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, qmdBulkReleaseDone INTEGER,
  qmdPreexitDone INTEGER, qmdLastCtaDone INTEGER, graphId INTEGER, clusterX INTEGER,
  clusterY INTEGER, clusterZ INTEGER, clusterSchedulingPolicy INTEGER,
  maxPotentialClusterSize INTEGER, maxActiveClusters INTEGER,
  sharedMemoryRequestedPercentage INTEGER, tensorSizeMinusOneElements TEXT NOT NULL);
-- Columns: start, end, deviceId, contextId, greenContextId, streamId, correlationId, globalPid,
-- demangledName, shortName, mangledName, launchType, cacheConfig, registersPerThread,
-- grid XYZ, block XYZ, static/dynamic shared memory, local memory per thread/total, gridId, ...
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000075000, 1000210000, 0, 1, NULL, 7, 103, 281891336880128, 10, 10, 10, 1, 0, 232,
   8, 16, 1, 256, 1, 1, 0, 81920, 0, 0, 101, 167936, NULL, 1, NULL, NULL, NULL, NULL,
   0, 0, 0, 0, 0, 0, 0, ''),
  (1000212000, 1000230000, 0, 1, NULL, 7, 104, 281891336880128, 12, 13, 14, 1, 0, 28,
   1024, 1, 1, 128, 1, 1, 0, 0, 0, 0, 102, 8192, NULL, 1, NULL, NULL, NULL, NULL,
   0, 0, 0, 0, 0, 0, 0, ''),
  (1000232000, 1000300000, 0, 1, NULL, 7, 105, 281891336880128, 15, 16, NULL, 1, 0, 32,
   196, 1, 32, 32, 32, 1, 4224, 0, 0, 0, 103, 8192, NULL, 1, NULL, NULL, NULL, NULL,
   0, 0, 0, 0, 0, 0, 0, ''),
  (1000302000, 1000520000, 0, 1, NULL, 7, 106, 281891336880128, 17, 17, 17, 1, 0, 168,
   392, 1, 1, 128, 1, 1, 0, 49152, 0, 0, 104, 102400, NULL, 1, NULL, NULL, NULL, NULL,
   0, 0, 0, 0, 0, 0, 0, ''),
  (1000640000, 1000690000, 0, 1, NULL, 13, 107, 281891336880128, 18, 19, NULL, 1, 0, 40,
   256, 1, 1, 1024, 1, 1, 0, 2048, 0, 0, 105, 8192, NULL, 1, NULL, NULL, NULL, NULL,
   0, 0, 0, 0, 0, 0, 0, ''),
  (1000400000, 1001100000, 1, 2, NULL, 13, 300, 281891336880128, 20, 21, NULL, 1, 0, 96,
   2, 1, 1, 512, 1, 1, 0, 0, 0, 0, 7, 8192, NULL, 1, NULL, NULL, NULL, NULL,
   0, 0, 0, 0, 0, 0, 0, '');

CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
-- eventClass 0 = CUDA runtime, 1 = CUDA driver, 67 = a backtrace record of call 103.
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1000010000, 1000030000, 0, 281891336904945, 101, 1, 0, NULL),
  (1000032000, 1000040000, 0, 281891336904945, 102, 2, 0, NULL),
  (1000060000, 1000070000, 0, 281891336904945, 103, 3, 0, NULL),
  (1000059000, 1000071000, 67, 281891336904945, 103, 5, 0, 1),
  (1000080000, 1000088000, 0, 281891336904945, 104, 3, 0, NULL),
  (1000100000, 1000107000, 0, 281891336904945, 105, 3, 0, NULL),
  (1000120000, 1000126000, 0, 281891336904945, 106, 3, 0, NULL),
  (1000620000, 1000628000, 1, 281891336904945, 107, 4, 0, NULL),
  (1000700000, 1000880000, 0, 281891336904945, 108, 6, 0, NULL);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER,
  srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
-- copyKind 1 = HtoD; srcKind 0 = pageable, dstKind 2 = device (ENUM_CUDA_MEM_KIND).
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (1000020000, 1000045000, 0, 1, NULL, 7, 101, 281891336880128, 9633792, 1, NULL, 0, 2,
   NULL, NULL, 0, 1, NULL, NULL, NULL, 1);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  graphNodeId INTEGER, memKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES
  (1000046000, 1000048000, 0, 1, NULL, 7, 102, 281891336880128, 0, 4194304, NULL, 2);

CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, deprecatedSyncType INTEGER,
  syncType INTEGER NOT NULL, eventId INTEGER NOT NULL, eventSyncId INTEGER);
-- syncType 3 = stream synchronize (ENUM_CUPTI_SYNC_TYPE).
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
  (1000701000, 1000879000, 0, 1, NULL, 7, 108, 281891336880128, NULL, 3, 0, NULL);

CREATE TABLE NVTX_EVENTS (
  start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
  textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,
  uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT,
  binaryData TEXT, eventId INTEGER NOT NULL PRIMARY KEY);
-- eventType 33 = category name, 34 = mark, 59 = push/pop range, 60 = start/end range,
-- 75 = domain creation (ENUM_NSYS_EVENT_TYPE).
INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text, globalTid,
                         endGlobalTid, textId, domainId, eventId) VALUES
  (999000000, NULL, 75, NULL, NULL, NULL, 'PyTorch', 281891336904945, NULL, NULL, 1, 1),
  (999000100, NULL, 33, NULL, 1, NULL, 'data', 281891336904945, NULL, NULL, 0, 2),
  (999200000, 1000004000, 60, 1, 1, NULL, 'data_loader_fetch', 281891336905031,
   281891336905031, NULL, 0, 3),
  (1000000000, 1000900000, 59, NULL, NULL, NULL, 'train_step', 281891336904945, NULL, NULL, 0, 4),
  (1000000500, NULL, 34, NULL, NULL, NULL, 'step 0', 281891336904945, NULL, NULL, 0, 5),
  (1000050000, 1000600000, 59, NULL, NULL, -16776961, NULL, 281891336904945, NULL, 30, 0, 6),
  (1000610000, 1000700000, 59, NULL, NULL, NULL, 'loss', 281891336904945, NULL, NULL, 0, 7),
  (1000950000, NULL, 59, NULL, NULL, NULL, 'optimizer.step', 281891336904945, NULL, NULL, 0, 8);
