-- Admission's look statement (migration 008) with a generic plan for its queries: the
-- plan cache otherwise went on choosing custom plans, planning the function's queries
-- again on every call, most of the statement's cost on the embedded engine (PGlite plans
-- in this process). The queries compare a status with constants and an address with an
-- argument, which a generic plan serves with the same indexes. Measured on PGlite,
-- in-process, two addresses a call, the same function alternately without and with
-- the setting: 0.71 -> 0.27 ms and 0.65 -> 0.27 ms of CPU a call (27 Nov 09:15 UTC, load 15);
-- on PostgreSQL (2,000 queued jobs, one session, wall clock a call, load 13-18):
-- 2.58 -> 1.52 ms and 1.52 -> 0.74 ms.
ALTER FUNCTION render_admission_looks(text[], integer, integer) SET plan_cache_mode = force_generic_plan;
