module lzc16 (
    input  wire [15:0] din,
    output reg  [4:0]  count,
    output wire        all_zero
);
    integer k;

    // Scan from the least significant bit up: the last set bit found is the leading one.
    always @* begin
        count = 5'd16;
        for (k = 0; k < 16; k = k + 1)
            if (din[k])
                count = 5'd15 - k[4:0];
    end

    assign all_zero = (din == 16'h0000);
endmodule
