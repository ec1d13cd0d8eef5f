-- The heaviest call stacks in the sample profiles, as module+offset frames (leaf first).
-- Run: jobs/sql jobs/top-stacks.sql
CREATE OR REPLACE TEMPORARY VIEW profiles
USING profile OPTIONS (path 'sample-data');

SELECT format,
       sum(count) AS samples,
       transform(frames, f -> concat(coalesce(f.module, '?'), '+0x', lower(hex(f.offset)))) AS stack
FROM profiles
WHERE kind = 'sample'
GROUP BY format, frames
ORDER BY samples DESC
LIMIT 10;
