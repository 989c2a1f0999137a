package io.onceport.activity.journal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The RFC 6962 Merkle hash tree (SHA-256, leaf = H(0x00 || data), node = H(0x01 || l || r)) with
 * inclusion and consistency proofs (RFC 6962 §2.1.1–2.1.2, verification as in RFC 9162 §2.1.3.2
 * and §2.1.4.2). Proof generation works on the full list of leaf hashes, which a verifier has
 * anyway; the writer keeps only an {@link Accumulator} so a checkpoint costs O(log n).
 */
public final class MerkleTree {
  private MerkleTree() {}

  public static byte[] emptyRoot() {
    return sha256().digest();
  }

  public static byte[] leafHash(byte[] data) {
    MessageDigest d = sha256();
    d.update((byte) 0x00);
    d.update(data);
    return d.digest();
  }

  public static byte[] nodeHash(byte[] left, byte[] right) {
    MessageDigest d = sha256();
    d.update((byte) 0x01);
    d.update(left);
    d.update(right);
    return d.digest();
  }

  /** MTH(D[0:size]) over leaf hashes. */
  public static byte[] root(List<byte[]> leafHashes, int size) {
    checkSize(leafHashes, size);
    return size == 0 ? emptyRoot() : subtreeRoot(leafHashes, 0, size);
  }

  /** The audit path PATH(index, D[0:size]). */
  public static List<byte[]> inclusionProof(List<byte[]> leafHashes, int index, int size) {
    checkSize(leafHashes, size);
    if (index < 0 || index >= size) {
      throw new IllegalArgumentException("Invalid leaf index " + index + " for tree size " + size);
    }
    List<byte[]> proof = new ArrayList<>();
    path(leafHashes, index, 0, size, proof);
    return proof;
  }

  /** PROOF(m, D[0:n]): proves the tree of size m is a prefix of the tree of size n. */
  public static List<byte[]> consistencyProof(List<byte[]> leafHashes, int m, int n) {
    checkSize(leafHashes, n);
    if (m < 0 || m > n) {
      throw new IllegalArgumentException("Invalid sizes for a consistency proof: " + m + " > " + n);
    }
    List<byte[]> proof = new ArrayList<>();
    if (m > 0 && m < n) {
      subproof(leafHashes, m, 0, n, true, proof);
    }
    return proof;
  }

  public static boolean verifyInclusion(
      byte[] leafHash, long index, long size, List<byte[]> proof, byte[] root) {
    if (index < 0 || index >= size) {
      return false;
    }
    long fn = index;
    long sn = size - 1;
    byte[] r = leafHash;
    for (byte[] p : proof) {
      if (p.length != 32 || sn == 0) {
        return false;
      }
      if ((fn & 1) == 1 || fn == sn) {
        r = nodeHash(p, r);
        if ((fn & 1) == 0) {
          while ((fn & 1) == 0 && fn != 0) {
            fn >>= 1;
            sn >>= 1;
          }
        }
      } else {
        r = nodeHash(r, p);
      }
      fn >>= 1;
      sn >>= 1;
    }
    return sn == 0 && Arrays.equals(r, root);
  }

  public static boolean verifyConsistency(
      long m, long n, List<byte[]> proof, byte[] rootM, byte[] rootN) {
    if (m < 0 || m > n) {
      return false;
    }
    if (m == n) {
      return proof.isEmpty() && Arrays.equals(rootM, rootN);
    }
    if (m == 0) {
      return proof.isEmpty();
    }
    if (proof.isEmpty()) {
      return false;
    }
    List<byte[]> path = new ArrayList<>(proof);
    if (Long.bitCount(m) == 1) {
      path.add(0, rootM);
    }
    long fn = m - 1;
    long sn = n - 1;
    while ((fn & 1) == 1) {
      fn >>= 1;
      sn >>= 1;
    }
    byte[] fr = path.get(0);
    byte[] sr = path.get(0);
    for (int i = 1; i < path.size(); i++) {
      byte[] c = path.get(i);
      if (c.length != 32 || sn == 0) {
        return false;
      }
      if ((fn & 1) == 1 || fn == sn) {
        fr = nodeHash(c, fr);
        sr = nodeHash(c, sr);
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      } else {
        sr = nodeHash(sr, c);
      }
      fn >>= 1;
      sn >>= 1;
    }
    return sn == 0 && Arrays.equals(fr, rootM) && Arrays.equals(sr, rootN);
  }

  private static byte[] subtreeRoot(List<byte[]> leaves, int from, int to) {
    int n = to - from;
    if (n == 1) {
      return leaves.get(from);
    }
    int k = largestPowerOfTwoBelow(n);
    return nodeHash(subtreeRoot(leaves, from, from + k), subtreeRoot(leaves, from + k, to));
  }

  private static void path(List<byte[]> leaves, int m, int from, int to, List<byte[]> out) {
    int n = to - from;
    if (n == 1) {
      return;
    }
    int k = largestPowerOfTwoBelow(n);
    if (m < k) {
      path(leaves, m, from, from + k, out);
      out.add(subtreeRoot(leaves, from + k, to));
    } else {
      path(leaves, m - k, from + k, to, out);
      out.add(subtreeRoot(leaves, from, from + k));
    }
  }

  private static void subproof(
      List<byte[]> leaves, int m, int from, int to, boolean complete, List<byte[]> out) {
    int n = to - from;
    if (m == n) {
      if (!complete) {
        out.add(subtreeRoot(leaves, from, to));
      }
      return;
    }
    int k = largestPowerOfTwoBelow(n);
    if (m <= k) {
      subproof(leaves, m, from, from + k, complete, out);
      out.add(subtreeRoot(leaves, from + k, to));
    } else {
      subproof(leaves, m - k, from + k, to, false, out);
      out.add(subtreeRoot(leaves, from, from + k));
    }
  }

  private static int largestPowerOfTwoBelow(int n) {
    return Integer.highestOneBit(n - 1);
  }

  private static void checkSize(List<byte[]> leaves, int size) {
    if (size < 0 || size > leaves.size()) {
      throw new IllegalArgumentException(
          "Invalid tree size " + size + " for " + leaves.size() + " leaves");
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * The right edge of a growing tree: the roots of its perfect subtrees, left to right. Appending
   * is amortized O(1) and the root O(log n), so a writer can sign a checkpoint without keeping the
   * tree.
   */
  public static final class Accumulator {
    private final List<byte[]> peaks = new ArrayList<>();
    private long size;

    public void append(byte[] leafHash) {
      byte[] h = leafHash;
      for (long s = size; (s & 1) == 1; s >>= 1) {
        h = nodeHash(peaks.remove(peaks.size() - 1), h);
      }
      peaks.add(h);
      size++;
    }

    public long size() {
      return size;
    }

    public byte[] root() {
      if (size == 0) {
        return emptyRoot();
      }
      byte[] r = peaks.get(peaks.size() - 1);
      for (int i = peaks.size() - 2; i >= 0; i--) {
        r = nodeHash(peaks.get(i), r);
      }
      return r;
    }
  }
}
