package io.onceport.frontend.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.Fingerprinter;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An unknown tool name close to a known one says which one was probably meant; a far one does not guess. */
@Timeout(30)
class UnknownToolSuggestionTest {
  @Test
  void aTypoNamesTheToolItWasProbablyMeantToBe() throws Exception {
    ContractCallPreparation preparation = new ContractCallPreparation(new ContractLoader().load(Path.of("contracts")),
        new ArgumentValidator(), new Fingerprinter(FingerprintKey.of(new byte[32])));
    assertEquals(Optional.of("create_release"), preparation.closest("creat_release"));
    assertEquals(Optional.of("send_notification"), preparation.closest("send_notifcation"));
    assertEquals(Optional.of("list_releases"), preparation.closest("list_release"));
    assertEquals(Optional.empty(), preparation.closest("delete_everything"));
  }
}
