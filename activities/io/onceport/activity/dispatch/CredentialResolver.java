package io.onceport.activity.dispatch;

public interface CredentialResolver {
  io.onceport.activity.vault.Credential resolve(String reference);
}
