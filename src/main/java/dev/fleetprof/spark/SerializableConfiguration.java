package dev.fleetprof.spark;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;

/**
 * Hadoop's Configuration is not Serializable; this wrapper writes it as Hadoop's Writable form so
 * it can be broadcast once per scan instead of shipped with every task.
 */
public final class SerializableConfiguration implements Serializable {
  private static final long serialVersionUID = 1L;
  private transient Configuration conf;

  public SerializableConfiguration(Configuration conf) {
    this.conf = conf;
  }

  public Configuration get() {
    return conf;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    conf.write(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    conf = new Configuration(false);
    conf.readFields(in);
  }
}
