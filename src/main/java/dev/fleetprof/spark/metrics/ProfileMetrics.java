package dev.fleetprof.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The source's metrics, shown on the scan node in the Spark UI's SQL tab. Spark instantiates each
 * class by reflection on the driver to aggregate task values, so every one is a public
 * top-level-like static class with a public no-argument constructor.
 */
public final class ProfileMetrics {
  private ProfileMetrics() {}

  public static final String FILES = "profileFiles";
  public static final String RECORDS = "profileRecords";
  public static final String BYTES = "profileBytes";
  public static final String RESYNCED_SPLITS = "resynchronisedSplits";
  public static final String TRUNCATED_FILES = "truncatedFiles";
  public static final String CHAINS_DECODED = "callChainsDecoded";
  public static final String PROBLEMS = "inputProblems";
  public static final String MISSING_FILES = "missingFiles";
  public static final String REPLACED_CHARACTERS = "replacedCharacters";

  public static CustomMetric[] all() {
    return new CustomMetric[] {
      new Files(),
      new Records(),
      new Bytes(),
      new ResyncedSplits(),
      new TruncatedFiles(),
      new ChainsDecoded(),
      new Problems(),
      new MissingFiles(),
      new ReplacedCharacters()
    };
  }

  /** A task's value of one metric. */
  public static CustomTaskMetric task(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }

  public static class Files extends CustomSumMetric {
    @Override
    public String name() {
      return FILES;
    }

    @Override
    public String description() {
      return "profile files read";
    }
  }

  public static class Records extends CustomSumMetric {
    @Override
    public String name() {
      return RECORDS;
    }

    @Override
    public String description() {
      return "profile records read";
    }
  }

  public static class Bytes extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES;
    }

    @Override
    public String description() {
      return "profile bytes decoded";
    }
  }

  public static class ResyncedSplits extends CustomSumMetric {
    @Override
    public String name() {
      return RESYNCED_SPLITS;
    }

    @Override
    public String description() {
      return "splits that resynchronised on a record boundary";
    }
  }

  public static class TruncatedFiles extends CustomSumMetric {
    @Override
    public String name() {
      return TRUNCATED_FILES;
    }

    @Override
    public String description() {
      return "truncated profile files (no trailer)";
    }
  }

  public static class ChainsDecoded extends CustomSumMetric {
    @Override
    public String name() {
      return CHAINS_DECODED;
    }

    @Override
    public String description() {
      return "call chains decoded";
    }
  }

  public static class Problems extends CustomSumMetric {
    @Override
    public String name() {
      return PROBLEMS;
    }

    @Override
    public String description() {
      return "malformed input problems (error rows, dropped or ignored files)";
    }
  }

  public static class MissingFiles extends CustomSumMetric {
    @Override
    public String name() {
      return MISSING_FILES;
    }

    @Override
    public String description() {
      return "files gone before they were read";
    }
  }

  public static class ReplacedCharacters extends CustomSumMetric {
    @Override
    public String name() {
      return REPLACED_CHARACTERS;
    }

    @Override
    public String description() {
      return "invalid UTF-8 sequences in module paths, read as U+FFFD";
    }
  }
}
