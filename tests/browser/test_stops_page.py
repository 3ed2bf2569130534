"""The player page's stops control: the seat's setting for reaction windows, sent to the
server and kept in step with the seat's other sockets."""

from __future__ import annotations

from wsutil import Raw

OPEN = "#play[data-status=open]"


async def test_the_page_sets_the_seats_stops_and_follows_them_from_another_device(server, page):
    created = server.create(ruleset="spellfire", seed=4, seats=["alice", "bob", "carol"])
    match_id = created["match"]
    carol = await page(f"{server.url}/play/{match_id}#token={created['tokens']['carol']}", wait_for=OPEN)
    select = carol.locator("select#stops")
    await select.wait_for()
    assert await select.input_value() == "ask"
    assert await carol.locator("select#stops option").all_inner_texts() == [
        "Always ask me", "Pass unless I have a card for it", "Pass everything until my turn"]

    phone = await Raw.open(server.url, match_id)  # carol's other device
    assert (await phone.hello(created["tokens"]["carol"]))["t"] == "welcome"
    await select.select_option("pass_unless_playable")
    told = await phone.recv_until(lambda m: m["t"] == "stops")
    assert told == {"t": "stops", "mode": "pass_unless_playable"}  # the server took the page's setting

    await phone.send({"t": "stops", "mode": "pass_until_my_turn"})
    await carol.wait_for_function("() => document.querySelector('select#stops').value === 'pass_until_my_turn'")

    # A reload (or a server that restarted and forgot) gets the setting again from the page.
    await carol.reload()
    await carol.wait_for_selector(OPEN)
    again = await phone.recv_until(lambda m: m["t"] == "stops")
    assert again == {"t": "stops", "mode": "pass_until_my_turn"}
    assert await carol.locator("select#stops").input_value() == "pass_until_my_turn"

    # A spectator has no stops: the control is not shown.
    watcher = await page(f"{server.url}/play/{match_id}#token={created['spectator_token']}", wait_for=OPEN)
    assert await watcher.locator("select#stops").is_hidden()
    await phone.close()
