package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.implementation.ResourceId;
import org.junit.jupiter.api.Test;

/** RIDs must parse with the SDK's own parser, or the client cannot address resources by RID. */
class RidsTest {

  @Test
  void databaseContainerDocumentAndRangeRids_parseWithTheSdk() {
    byte[] db = Rids.database(123_456);
    byte[] coll = Rids.container(db, 7);

    ResourceId dbRid = ResourceId.tryParse(Rids.text(db)).getRight();
    ResourceId collRid = ResourceId.tryParse(Rids.text(coll)).getRight();

    assertThat(ResourceId.tryParse(Rids.text(db)).getLeft()).isTrue();
    assertThat(ResourceId.tryParse(Rids.text(coll)).getLeft()).isTrue();
    assertThat(collRid.getDatabaseId()).isEqualTo(dbRid);
    assertThat(ResourceId.tryParse(Rids.text(Rids.document(coll, 99))).getLeft()).isTrue();
    assertThat(ResourceId.tryParse(Rids.text(Rids.partitionKeyRange(coll, 1))).getLeft()).isTrue();
  }
}
