package dev.fleetprof.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import scala.Tuple2;

/**
 * Java copies of the Scala collections a {@code Row} holds for nested arrays and maps. Walked with
 * Scala's own iterators, which Scala 2.12 and 2.13 share (their converters to Java collections
 * differ, and the tests run on both).
 */
public final class ScalaValues {
  private ScalaValues() {}

  public static <T> List<T> list(scala.collection.Seq<T> seq) {
    List<T> out = new ArrayList<>();
    scala.collection.Iterator<T> it = seq.iterator();
    while (it.hasNext()) {
      out.add(it.next());
    }
    return out;
  }

  public static <K, V> Map<K, V> map(scala.collection.Map<K, V> map) {
    Map<K, V> out = new LinkedHashMap<>();
    scala.collection.Iterator<Tuple2<K, V>> it = map.iterator();
    while (it.hasNext()) {
      Tuple2<K, V> e = it.next();
      out.put(e._1(), e._2());
    }
    return out;
  }
}
