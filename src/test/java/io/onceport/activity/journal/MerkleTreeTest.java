package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Vectors from the RFC 6962 reference tests (transparency-dev/merkle proof/verify_test.go, the same
 * as certificate-transparency-go): the 8-leaf tree, its roots at every size, inclusion and
 * consistency proofs.
 */
class MerkleTreeTest {
  private static final String[] LEAVES = {
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f"
  };
  private static final String[] ROOTS = {
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  };
  private static final HexFormat HEX = HexFormat.of();

  private static List<byte[]> leafHashes() {
    List<byte[]> out = new ArrayList<>();
    for (String l : LEAVES) {
      out.add(MerkleTree.leafHash(HEX.parseHex(l)));
    }
    return out;
  }

  private static List<byte[]> hashes(String... hex) {
    List<byte[]> out = new ArrayList<>();
    for (String h : hex) {
      out.add(HEX.parseHex(h));
    }
    return out;
  }

  private static void assertProof(List<byte[]> expected, List<byte[]> actual) {
    assertEquals(expected.size(), actual.size());
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), "proof element " + i);
    }
  }

  @Test
  void rootsOfEveryPrefixMatchTheReferenceVectors() {
    List<byte[]> leaves = leafHashes();
    MerkleTree.Accumulator acc = new MerkleTree.Accumulator();
    for (int size = 1; size <= 8; size++) {
      acc.append(leaves.get(size - 1));
      assertEquals(ROOTS[size - 1], HEX.formatHex(MerkleTree.root(leaves, size)), "size " + size);
      assertEquals(ROOTS[size - 1], HEX.formatHex(acc.root()), "accumulator size " + size);
    }
  }

  @Test
  void emptyTreeRootIsTheHashOfNothing() {
    assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        HEX.formatHex(MerkleTree.root(List.of(), 0)));
    assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        HEX.formatHex(new MerkleTree.Accumulator().root()));
  }

  @Test
  void inclusionProofsMatchTheReferenceVectorsAndVerify() {
    List<byte[]> leaves = leafHashes();
    Object[][] vectors = {
      {0, 8, hashes("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4")},
      {5, 8, hashes("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
          "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7")},
      {2, 3, hashes("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125")},
      {1, 5, hashes("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b")},
    };
    for (Object[] v : vectors) {
      int index = (int) v[0];
      int size = (int) v[1];
      @SuppressWarnings("unchecked")
      List<byte[]> expected = (List<byte[]>) v[2];
      assertProof(expected, MerkleTree.inclusionProof(leaves, index, size));
      byte[] root = HEX.parseHex(ROOTS[size - 1]);
      assertTrue(MerkleTree.verifyInclusion(leaves.get(index), index, size, expected, root));
      assertFalse(MerkleTree.verifyInclusion(leaves.get(index), index + 1, size, expected, root));
      assertFalse(MerkleTree.verifyInclusion(leaves.get(index), index, size, expected,
          HEX.parseHex(ROOTS[0].replace('6', '7'))));
    }
  }

  @Test
  void consistencyProofsMatchTheReferenceVectorsAndVerify() {
    List<byte[]> leaves = leafHashes();
    Object[][] vectors = {
      {1, 1, hashes()},
      {1, 8, hashes("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4")},
      {6, 8, hashes("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
          "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7")},
      {2, 5, hashes("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b")},
      {6, 7, hashes("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
          "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7")},
    };
    for (Object[] v : vectors) {
      int m = (int) v[0];
      int n = (int) v[1];
      @SuppressWarnings("unchecked")
      List<byte[]> expected = (List<byte[]>) v[2];
      assertProof(expected, MerkleTree.consistencyProof(leaves, m, n));
      byte[] rootM = HEX.parseHex(ROOTS[m - 1]);
      byte[] rootN = HEX.parseHex(ROOTS[n - 1]);
      assertTrue(MerkleTree.verifyConsistency(m, n, expected, rootM, rootN), m + "->" + n);
      if (!expected.isEmpty()) {
        assertFalse(MerkleTree.verifyConsistency(m, n, expected, rootN, rootM), "swapped roots");
        assertFalse(MerkleTree.verifyConsistency(m, n, List.of(), rootM, rootN), "empty proof");
        assertFalse(MerkleTree.verifyConsistency(m - 1 == 0 ? m + 1 : m - 1, n, expected, rootM,
            rootN), "wrong size1");
        List<byte[]> flipped = new ArrayList<>(expected);
        byte[] first = flipped.get(0).clone();
        first[0] ^= 16;
        flipped.set(0, first);
        assertFalse(MerkleTree.verifyConsistency(m, n, flipped, rootM, rootN), "modified proof");
        assertFalse(MerkleTree.verifyConsistency(m, n, expected.subList(0, expected.size() - 1),
            rootM, rootN), "truncated proof");
      }
    }
  }

  @Test
  void generatedProofsVerifyForEveryPairOfSizesUpTo40() {
    List<byte[]> leaves = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      leaves.add(MerkleTree.leafHash(new byte[] {(byte) i, (byte) (i * 7)}));
    }
    for (int n = 1; n <= 40; n++) {
      byte[] rootN = MerkleTree.root(leaves, n);
      for (int m = 1; m <= n; m++) {
        assertTrue(MerkleTree.verifyConsistency(m, n, MerkleTree.consistencyProof(leaves, m, n),
            MerkleTree.root(leaves, m), rootN), m + "->" + n);
        int index = m - 1;
        assertTrue(MerkleTree.verifyInclusion(leaves.get(index), index, n,
            MerkleTree.inclusionProof(leaves, index, n), rootN), index + " in " + n);
      }
    }
  }
}
