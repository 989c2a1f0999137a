package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Reference vectors from golang.org/x/mod/sumdb/note (note_test.go): the PeterNeumann key. */
class NoteSignerTest {
  private static final String SKEY =
      "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
  private static final String VKEY =
      "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
  private static final String TEXT = "If you think cryptography is the answer to your problem,\n"
      + "then you don't know what your problem is.\n";
  private static final String NOTE = TEXT + "\n\u2014 PeterNeumann "
      + "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

  @Test
  void signsTheReferenceNoteByteForByte() {
    NoteSigner signer = NoteSigner.parse(SKEY);
    assertEquals(VKEY, signer.verifierKey());
    assertEquals(SKEY, signer.encode());
    assertEquals(NOTE, signer.sign(TEXT));
  }

  @Test
  void opensTheReferenceNoteAndRejectsAnAlteredOne() {
    NoteVerifier v = NoteVerifier.parse(VKEY);
    assertEquals(TEXT, v.open(NOTE));
    NoteVerifier.NoteException e = assertThrows(NoteVerifier.NoteException.class,
        () -> v.open(NOTE.replace("cryptography", "cryptographY")));
    assertEquals("signature by PeterNeumann does not verify", e.getMessage());
  }

  @Test
  void ignoresSignaturesOfOtherKeysButNeedsOneOfItsOwn() {
    NoteSigner other = NoteSigner.generate("witness.example/w1");
    String cosigned = NOTE + other.sign(TEXT).substring(TEXT.length() + 1);
    assertEquals(TEXT, NoteVerifier.parse(VKEY).open(cosigned));
    NoteVerifier.NoteException e = assertThrows(NoteVerifier.NoteException.class,
        () -> other.verifier().open(NOTE));
    String[] parts = other.verifierKey().split("\\+");
    assertEquals("no signature by key " + parts[0] + "+" + parts[1], e.getMessage());
  }

  @Test
  void rejectsAVerifierKeyWhoseIdDoesNotMatch() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NoteVerifier.parse("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));
    assertEquals("Invalid verifier key: key id does not match the key", e.getMessage());
  }
}
