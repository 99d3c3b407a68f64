class V4:

    @property
    def is_reserved(self):
        """Test if the address is otherwise IETF reser ved.

        Returns:
            True if reserved.
        """
        return self in RESERVED_4

class V6:

    @property
    def is_reserved(self):
        """Test if the address is otherwise IETF reserved.

        Returns:
            True if reserved.
        """
        return self in RESERVED_6

