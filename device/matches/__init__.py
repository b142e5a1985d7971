"""The application's core: live matches and what the players do with them (play, answer,
correct, undo, name the players, end), between the phone's HTTP routes and the camera's
runtime on one side and the rules and the store on the other.

``service`` is the one place where the players' and the camera's changes meet the rules
and the store; ``views`` what the phone page shows of a match; ``corrections`` how a
misread move is put right; ``setup`` the new-match form and the engine's verdict on it.
"""
