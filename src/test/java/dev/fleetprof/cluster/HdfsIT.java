package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.spark.ProfileDataSource;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.SyntheticCpuProfile;
import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code profile} source on a real HDFS (an in-process MiniDFSCluster with small blocks and
 * three datanodes): the rows equal a local read's, and every input partition prefers the datanodes
 * that hold its bytes, so that Spark schedules the read next to the data.
 */
class HdfsIT {
  private static final long BLOCK = 512 * 1024;
  private static final String[] DATANODES = {
    "dn1.fleetprof.test", "dn2.fleetprof.test", "dn3.fleetprof.test"
  };

  /** One directory name on both file systems, so that paths compare relative to it. */
  private static final String ROOT = "fleetprof-in";

  @Test
  void readsHdfsLikeLocalDiskAndPrefersTheBlocksHosts(@TempDir Path tmp) throws Exception {
    Path local = tmp.resolve(ROOT);
    SampleData.copyListed(local);
    Path big = Files.createDirectories(local.resolve("synthetic")).resolve("big.prof");
    long bigRecords = SyntheticCpuProfile.write(big, 4 * BLOCK + BLOCK / 3, 20261120L);

    Configuration conf = new Configuration();
    conf.setLong("dfs.blocksize", BLOCK);
    // The namenode refuses blocks under 1 MiB unless told otherwise.
    conf.setLong("dfs.namenode.fs-limits.min-block-size", 64 * 1024);
    conf.setInt("dfs.replication", 2);
    Path hdfsBase = Jvms.WORK.resolve("hdfs");
    FleetJob.deleteRecursively(hdfsBase);
    MiniDFSCluster dfs =
        new MiniDFSCluster.Builder(conf, hdfsBase.toFile())
            .numDataNodes(DATANODES.length)
            .hosts(DATANODES)
            .build();
    FileSystem fs = null;
    try {
      dfs.waitActive();
      fs = dfs.getFileSystem();
      org.apache.hadoop.fs.Path remote = new org.apache.hadoop.fs.Path("/" + ROOT);
      Map<String, BlockLocation[]> blocks = upload(fs, local, remote);
      String uri = fs.makeQualified(remote).toString();
      BlockLocation[] bigBlocks = blocks.get("synthetic/big.prof");
      assertTrue(bigBlocks.length >= 5, "the big profile spans " + bigBlocks.length + " blocks");

      SparkSession spark = TestSpark.get();
      Dataset<Row> fromHdfs =
          spark
              .read()
              .format("profile")
              .option("maxPartitionBytes", BLOCK)
              .option("openCostInBytes", 8 * BLOCK)
              .load(uri);
      Dataset<Row> fromDisk = spark.read().format("profile").load(local.toString());
      long rows =
          OutputRoots.assertSameRows(
              "profile rows from HDFS vs local disk",
              relativePaths(fromDisk),
              relativePaths(fromHdfs));
      assertEquals(
          bigRecords,
          relativePaths(fromHdfs).where("path = 'synthetic/big.prof'").count(),
          "records of the split profile read from HDFS");

      int partitions = checkPreferredLocations(uri, blocks);
      System.out.printf(
          "HDFS: %d rows equal the local read; %d partitions, the big profile in"
              + " %d blocks, each partition preferring its block's datanodes%n",
          rows, partitions, bigBlocks.length);
    } finally {
      if (fs != null) {
        fs.close();
      }
      // Not shutdown(): it also clears the JVM's Hadoop shutdown hooks, the test Spark session's
      // among them. The data stays under target/ for a look after a failure.
      dfs.shutdownDataNodes();
      dfs.shutdownNameNodes();
    }
  }

  /**
   * Plans the read through the public DSv2 API and reads each input partition with the source's own
   * reader: the records a partition yields tell which block it covers (1-block splits and an open
   * cost above a split keep every partition within one block of one file), and its preferred
   * locations must be exactly the datanodes holding that block.
   */
  private static int checkPreferredLocations(String uri, Map<String, BlockLocation[]> blocks)
      throws IOException {
    CaseInsensitiveStringMap options =
        new CaseInsensitiveStringMap(
            Map.of(
                "path", uri, "maxPartitionBytes", "" + BLOCK, "openCostInBytes", "" + 8 * BLOCK));
    ProfileDataSource source = new ProfileDataSource();
    StructType schema = source.inferSchema(options);
    Table table = source.getTable(schema, new Transform[0], options);
    Batch batch = ((SupportsRead) table).newScanBuilder(options).build().toBatch();
    InputPartition[] partitions = batch.planInputPartitions();
    PartitionReaderFactory readers = batch.createReaderFactory();
    int pathField = schema.fieldIndex("path");
    int offsetField = schema.fieldIndex("record_offset");

    Set<Set<String>> distinctLocations = new HashSet<>();
    int bigPartitions = 0;
    for (InputPartition p : partitions) {
      Set<String> blocksRead = new HashSet<>();
      BlockLocation located = null;
      try (PartitionReader<InternalRow> r = readers.createReader(p)) {
        while (r.next()) {
          InternalRow row = r.get();
          String file = relative(row.getUTF8String(pathField).toString());
          long offset = row.getLong(offsetField);
          for (BlockLocation b : blocks.get(file)) {
            if (offset >= b.getOffset() && offset < b.getOffset() + b.getLength()) {
              blocksRead.add(file + "@" + b.getOffset());
              located = b;
            }
          }
        }
      }
      if (located == null) {
        continue; // a file without records (an empty profile): nothing to locate
      }
      assertEquals(
          1, blocksRead.size(), "a partition read records of several blocks: " + blocksRead);
      Set<String> preferred = new HashSet<>(List.of(p.preferredLocations()));
      assertEquals(
          new HashSet<>(List.of(located.getHosts())),
          preferred,
          "preferred locations of the partition" + " reading " + blocksRead);
      distinctLocations.add(preferred);
      if (blocksRead.iterator().next().startsWith("synthetic/big.prof@")) {
        bigPartitions++;
      }
    }
    assertTrue(bigPartitions >= 5, "the big profile was read in " + bigPartitions + " partitions");
    assertTrue(
        distinctLocations.size() >= 2,
        "all partitions prefer the same hosts "
            + distinctLocations
            + ": nothing shows the hosts follow the blocks");
    return partitions.length;
  }

  /**
   * Copies the tree to HDFS and returns each file's blocks. The namenode places replicas at random
   * among datanodes that share one IP; until the big profile's blocks sit on differing datanodes,
   * locality would be untestable, so it is rewritten (rarely more than once).
   */
  private static Map<String, BlockLocation[]> upload(
      FileSystem fs, Path local, org.apache.hadoop.fs.Path remote) throws IOException {
    for (int attempt = 1; ; attempt++) {
      fs.delete(remote, true);
      fs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(local.toUri()), remote);
      Map<String, BlockLocation[]> out = new HashMap<>();
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(remote, true);
      while (it.hasNext()) {
        LocatedFileStatus st = it.next();
        out.put(relative(st.getPath().toString()), st.getBlockLocations());
      }
      Set<Set<String>> hostSets = new HashSet<>();
      for (BlockLocation b : out.get("synthetic/big.prof")) {
        hostSets.add(Set.of(b.getHosts()));
        assertTrue(
            Set.of(DATANODES).containsAll(Set.of(b.getHosts())),
            List.of(b.getHosts()) + " are not the datanodes' names");
      }
      if (hostSets.size() >= 2 || attempt == 5) {
        assertFalse(hostSets.size() < 2, "5 uploads put every block on the same datanodes");
        return out;
      }
    }
  }

  /** A path relative to the copied tree, on either file system. */
  private static String relative(String path) {
    String marker = "/" + ROOT + "/";
    return path.substring(path.indexOf(marker) + marker.length());
  }

  private static Dataset<Row> relativePaths(Dataset<Row> df) {
    return df.withColumn(
        "path",
        org.apache.spark.sql.functions.regexp_replace(df.col("path"), "^.*/" + ROOT + "/", ""));
  }
}
