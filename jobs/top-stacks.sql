-- The heaviest call stacks of one day, fleet-wide, from the fleet job's output.
-- Frames print as module+0xoffset (the module's base name), leaf first.
-- Run: jobs/sql [-d output=target/fleet-output] [-d date=YYYY-MM-DD] [-d limit=20] jobs/top-stacks.sql
-- (date defaults to the latest date in the output).
CREATE OR REPLACE TEMPORARY VIEW stacks AS
SELECT * FROM parquet.`${output:-target/fleet-output}/stacks`;

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM stacks
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM stacks));

SELECT date,
       format,
       kind,
       count,
       round(100 * count / sum(count) OVER (PARTITION BY format, kind), 2) AS pct_of_kind,
       hosts,
       profiles,
       transform(frames, f -> concat(coalesce(regexp_extract(f.module, '[^/]*$', 0), '?'),
                                     '+0x', lower(hex(f.offset)))) AS stack
FROM day
ORDER BY count DESC
LIMIT ${limit:-20};
