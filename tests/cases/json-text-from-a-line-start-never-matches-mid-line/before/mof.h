/**
   * Wraps a callable.
   */
  template<typename _Res>
    class move_only_function;
