-- gprof's call graph for one program, from the fleet job's output: for each function, who calls it
-- and how often (gmon.out call arcs, summed over the day's files), and what it calls. A caller is
-- the function holding the arc's return address; calls from code outside the program are not
-- recorded by glibc (gprof shows those functions as <spontaneous>).
-- Run: jobs/sql -d program=NAME [-d output=...] [-d date=YYYY-MM-DD] [-d function=%] jobs/gprof-callgraph.sql
CREATE OR REPLACE TEMPORARY VIEW program_locations AS
SELECT * FROM fleet_locations
WHERE format = 'gprof'
  AND regexp_extract(module, '[^/]*$', 0) = regexp_extract('${program}', '[^/]*$', 0);

-- The default day is the latest with this program's gmon.out data, not the latest of any program.
CREATE OR REPLACE TEMPORARY VIEW day_locations AS
SELECT * FROM program_locations
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE),
                      (SELECT max(date) FROM program_locations));

-- The function of an address: the ELF symbol, the outermost entry of its inline chain.
CREATE OR REPLACE TEMPORARY VIEW names AS
SELECT DISTINCT module, offset,
       coalesce(element_at(lines, -1).function, concat('0x', lower(hex(offset)))) AS function
FROM day_locations;

CREATE OR REPLACE TEMPORARY VIEW arcs AS
SELECT callee.function AS callee, caller.function AS caller, sum(s.count) AS calls
FROM fleet_stacks s
JOIN names callee ON callee.module = s.frames[0].module AND callee.offset = s.frames[0].offset
JOIN names caller ON caller.module = s.frames[1].module AND caller.offset = s.frames[1].offset
WHERE s.format = 'gprof' AND s.kind = 'arc' AND s.date = (SELECT max(date) FROM day_locations)
GROUP BY callee.function, caller.function;

SELECT function, relation, other, calls
FROM (
  SELECT callee AS function, 'called by' AS relation, caller AS other, calls FROM arcs
  UNION ALL
  SELECT caller AS function, 'calls' AS relation, callee AS other, calls FROM arcs
)
WHERE function LIKE '${function:-%}'
ORDER BY function, relation DESC, calls DESC, other;
