package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.SpecialFiles;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet job over a day an operator found broken: a symbolic link looping back to the day and a
 * FIFO where a profile should be. The job finishes (a hang fails the time limit), counts the day
 * once, and reports the FIFO as the one file with a problem.
 */
class FleetAggregateListingTest {
  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aDayWithALoopAndAFifoIsCountedOnce(@TempDir Path tmp) throws Exception {
    List<Path> all = SampleData.gperftoolsProfiles();
    FleetFixture fleet =
        new FleetFixture(tmp.resolve("in"))
            .copy("2026-11-20", "web041", all)
            .copy("2026-11-20", "web042", all);
    Path day = fleet.root().resolve("date=2026-11-20");
    Files.createSymbolicLink(day.resolve("loop"), Path.of(".."));
    SpecialFiles.fifo(fleet.host("2026-11-20", "web042").resolve("cpu.0001.prof"));

    FleetSummary s =
        FleetAggregate.run(
            TestSpark.get(),
            FleetAggregate.Args.parse(
                new String[] {
                  "--input", fleet.root().toString(), "--output", tmp.resolve("out").toString()
                }));

    long expected = 2 * all.stream().mapToLong(SampleData::pprofSampleCount).sum();
    assertEquals(BigDecimal.valueOf(expected), s.totalCount());
    assertEquals(List.of("2026-11-20"), s.dates());
    assertEquals(1, s.filesWithProblems(), "the FIFO");
    // zero_samples.prof has no records, hence no rows: the job cannot see it.
    assertEquals(2 * (all.size() - 1) + 1, s.files(), "the profiles with records, the FIFO");
  }
}
